/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_config.c - the configuration loader, config_load_buffer() (config.h): JSON parsing by
 * jansson, then every key's own parser and range check. A configuration that loads is also
 * printed (--check-config) and asked which rule matches a few paths (--explain-path), into
 * /dev/null. Checked: the loader's return values, an error text on failure with *ret untouched,
 * printable ASCII (what it quotes of the input is made printable), and for a syntax error
 * without jansson's "near '<token>'".
 */
#include "fuzz.h"
#include "reclaimd/config.h"

static const char *const paths[] = {
	"",
	"system.slice/nginx.service",
	"kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_4e5f_6789_abcd_ef0123456789.slice/cri-containerd-0123456789abcdef.scope",
	"user.slice/user-1000.slice/session-1.scope",
};

/* Printable ASCII only: what the message quotes of the input went through cfg_printable(), and
 * jansson's token from the file is left out. */
static bool message_is_printable(const char *text)
{
	for (const char *p = text; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct config *c = (struct config *)(uintptr_t)0xA5A5A5A5u;
	struct config_error err;
	int r;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	r = config_load_buffer((const char *)data, size, &c, &err);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r < 0) {
		FUZZ_CHECK(c == (struct config *)(uintptr_t)0xA5A5A5A5u);
		FUZZ_CHECK(err.text[0] != '\0' && memchr(err.text, '\0', sizeof(err.text)));
		FUZZ_CHECK(message_is_printable(err.text));
		/* a syntax error (jansson's, the text alone: n_errors 0) quotes no token; an unknown
		 * key is quoted; a content error has a line when its path is in the text */
		FUZZ_CHECK(err.n_errors > 0 || !strstr(err.text, " near '"));
		FUZZ_CHECK(err.n_errors == 0 || err.line == 0 || strchr(err.text, ':') < strstr(err.text, ": "));
		return 0;
	}
	config_print(c, devnull);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		const struct rule *rule = config_match(c, paths[i]);

		FUZZ_CHECK(!rule || (rule >= c->rules && rule < c->rules + c->n_rules));
		config_explain(c, paths[i], devnull);
	}
	config_free(c);
	return 0;
}
