#include <stdio.h>
int main(void) { fprintf(stderr, "gemmq: not built yet\n"); return 3; }
