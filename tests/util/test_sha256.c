/* test_sha256.c: gq_sha256_hex against FIPS 180-4 examples and sha256sum(1) at the padding
 * boundaries (a message of 55 bytes pads into one block, 56 into two). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sha256.h"

/* Hash n repetitions of byte c and compare with the expected digest. */
static void check_repeated(int c, size_t n, const char *expect)
{
	char *buf = malloc(n ? n : 1);
	char got[65];
	memset(buf, c, n);
	gq_sha256_hex(buf, n, got);
	CHECK_MSG(strcmp(got, expect) == 0, "%zu × '%c': got %s, want %s", n, c, got, expect);
	free(buf);
}

int main(void)
{
	char got[65];

	gq_sha256_hex(NULL, 0, got);
	CHECK(strcmp(got, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
	CHECK(strlen(got) == 64);

	gq_sha256_hex("abc", 3, got);
	CHECK(strcmp(got, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);

	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	gq_sha256_hex(two, strlen(two), got);
	CHECK(strcmp(got, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);

	/* Digests of n bytes 'x' from `head -c n /dev/zero | tr '\0' x | sha256sum`. */
	static const struct {
		size_t n;
		const char *digest;
	} xs[] = {
	    {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
	    {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
	    {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
	    {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
	    {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
	    {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
	    {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
	    {127, "70156a14adbabf98cff3a71c7084b417abf057a8efd27329ca36b7202c87d81f"},
	    {128, "24da1b81d0b16df6428eee73c69fcb2a93c76bc6df706f0c6670fe6bfe800464"},
	};
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		check_repeated('x', xs[i].n, xs[i].digest);

	/* FIPS 180-4 long message: one million 'a'. */
	check_repeated('a', 1000000,
	               "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	/* Bytes above 0x7f are hashed as unsigned (printf '\xff\x80\x00' | sha256sum). */
	const unsigned char high[] = {0xff, 0x80, 0x00};
	gq_sha256_hex(high, sizeof(high), got);
	CHECK(strcmp(got, "e9d359479a5afbc51ee48f63fd7c4c27b4067c80c39bb1c9604917d3a6a6c8d7") == 0);

	return gq_check_exit("test_sha256");
}
