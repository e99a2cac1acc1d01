/* fuzz_protocol.c: libFuzzer target for the protocol parser (gq_protocol_parse), the reader of
 * every protocol file and of the protocol embedded in each results file. Built with GQ_FUZZ
 * (tests/CMakeLists.txt); scripts/test --sanitize runs it on a seed corpus of the committed
 * protocols. Any crash, leak or undefined behaviour is a finding. */
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gq_protocol proto;
	gq_error err;
	gq_error_clear(&err);
	if (gq_protocol_parse((const char *)data, size, "fuzz.json", &proto, &err) == GQ_OK)
		gq_protocol_free(&proto);
	char text[2048];
	gq_error_format(&err, text, sizeof(text));
	return 0;
}
