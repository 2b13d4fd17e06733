/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_lru_gen.c - lru_gen_parse(): /sys/kernel/debug/lru_gen (mglru.h). The callback checks each
 * lruvec it is given and stops the parse at memcg id 7, to cover that path too. */
#include "fuzz.h"
#include "reclaimd/mglru.h"

#define STOP_ID 7
#define STOP_RET 12345

struct span {
	const char *buf;
	size_t len;
};

static int check_lruvec(const struct lru_gen_lruvec *v, void *userdata)
{
	const struct span *in = userdata;

	FUZZ_CHECK(v->memcg_id != 0 && v->node >= 0);
	FUZZ_CHECK(v->n_gens >= 1 && v->n_gens <= LRU_GEN_MAX_LINES);
	FUZZ_CHECK(v->path_len >= 1 && v->path[0] == '/');
	FUZZ_CHECK(v->path >= in->buf && v->path_len <= in->len - (size_t)(v->path - in->buf));
	FUZZ_CHECK(!memchr(v->path, '\n', v->path_len));
	FUZZ_CHECK(v->min_seq == v->seq[0] && v->max_seq == v->seq[v->n_gens - 1]);
	FUZZ_CHECK(v->oldest_age_ms == v->age_ms[0]);
	for (unsigned i = 1; i < v->n_gens; i++)
		FUZZ_CHECK(v->seq[i] > v->seq[i - 1]);
	return v->memcg_id == STOP_ID ? STOP_RET : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct span in = { (const char *)data, size };
	int r = lru_gen_parse(in.buf, in.len, check_lruvec, &in);

	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == STOP_RET);
	return 0;
}
