// SPDX-License-Identifier: MIT
/*
 * C++ exceptions (tests/cli/test_libstacks.sh): fail_at throws an Err from
 * one line (@THROW) and is called from two places in main (@CALL1 three
 * times, @CALL2 once). libstdc++'s __cxa_allocate_exception mallocs each
 * exception object: its site is the throwing line, 4 instances.
 */
struct Err {
	long payload[8];
};

__attribute__((noinline)) static void fail_at(int where)
{
	if (where >= 0)
		throw Err{ { where } }; /* @THROW */
}

int main()
{
	long n = 0;
	for (int i = 0; i < 3; i++) {
		try {
			fail_at(i); /* @CALL1 */
		} catch (const Err &e) {
			n += e.payload[0];
		}
	}
	try {
		fail_at(7); /* @CALL2 */
	} catch (const Err &e) {
		n += e.payload[0];
	}
	return n == 10 ? 0 : 1;
}
