/* plugin_no_entry.c: a shared library without gemmq's entry point; gemmq must say so. */
int gemmq_not_the_entry(void);
int gemmq_not_the_entry(void)
{
	return 1;
}
