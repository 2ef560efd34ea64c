/* lexicon.c — loading TSV lexicons and building the Aho-Corasick automaton.
 * Written here because no Debian-packaged C library offers a multi-pattern
 * matcher over code points that can be stepped one character at a time from
 * our own decode loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "lexicon.h"
#include "rules.h"
#include "utf8.h"
#include "util.h"

const int32_t jh_lex_zero_page[256];

void jh_lexicon_init(jh_lexicon *lx)
{
	memset(lx, 0, sizeof *lx);
	for (int i = 0; i < 256; i++)
		lx->root_page[i] = (int32_t *)jh_lex_zero_page; /* never written: see table_put */
}

void jh_lexicon_free(jh_lexicon *lx)
{
	for (size_t i = 0; !lx->map && i < lx->n_entries; i++) {
		jh_lex_entry *e = &lx->entries[i];
		free(e->wrong);
		free(e->right);
		free(e->note);
		free(e->prev_not);
		free(e->next_not);
	}
	free(lx->entries);
	free(lx->fail);
	free(lx->out);
	free(lx->dict);
	for (int i = 0; i < 256; i++)
		if (lx->root_page[i] != jh_lex_zero_page)
			free(lx->root_page[i]);
	free(lx->keys);
	free(lx->vals);
	free(lx->first_child);
	free(lx->next_sibling);
	free(lx->label);
	if (lx->map)
		munmap(lx->map, lx->map_len);
	memset(lx, 0, sizeof *lx);
}

int jh_lexicon_add(jh_lexicon *lx, long rule_index, const char *wrong, size_t wlen,
                   const char *right, const char *note, const char *prev_not,
                   const char *next_not, unsigned line)
{
	if (lx->built || lx->map) /* a mapped lexicon's strings are not freed one by one */
		return JH_ERR_STATE;
	if (jh_grow((void **)&lx->entries, &lx->cap_entries, lx->n_entries + 1, sizeof *lx->entries))
		return JH_ERR_NOMEM;
	jh_lex_entry *e = &lx->entries[lx->n_entries];
	memset(e, 0, sizeof *e);
	e->rule_index = rule_index;
	e->wrong = jh_strndup(wrong, wlen);
	e->wrong_len = wlen;
	e->right = right ? jh_strdup(right) : NULL;
	e->note = note && *note ? jh_strdup(note) : NULL;
	e->prev_not = prev_not && *prev_not ? jh_strdup(prev_not) : NULL;
	e->next_not = next_not && *next_not ? jh_strdup(next_not) : NULL;
	e->line = line;
	e->safety = -1;
	e->next_same = -1;
	if (!e->wrong || (right && !e->right) || (note && *note && !e->note) ||
	    (prev_not && *prev_not && !e->prev_not) || (next_not && *next_not && !e->next_not)) {
		free(e->wrong);
		free(e->right);
		free(e->note);
		free(e->prev_not);
		free(e->next_not);
		return JH_ERR_NOMEM;
	}
	lx->n_entries++;
	return JH_OK;
}

/* Split a TSV line in place into at most max fields. */
static size_t split_tabs(char *line, char **fields, size_t max)
{
	size_t n = 0;
	fields[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '\t') {
			*p = '\0';
			fields[n++] = p + 1;
		}
	return n;
}

int jh_lexicon_load_tsv(jh_lexicon *lx, long rule_index, const char *path, const char *rule_id,
                        jh_diag_fn diag_fn, void *payload)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		int err = errno;
		jh_report(diag_fn, payload, JH_ERROR, path, 0, 0, rule_id, "cannot read lexicon: %s",
		          strerror(err));
		return err == ENOMEM ? JH_ERR_NOMEM : JH_ERR_RULES;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	unsigned lineno = 0;
	int errors = 0, rc = JH_OK;
	while ((errno = 0, got = getline(&line, &cap, f)) >= 0) {
		lineno++;
		size_t n = (size_t)got;
		if (lineno == 1 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
			memmove(line, line + 3, n - 2); /* a BOM is not part of the first word */
			n -= 3;
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		if (strlen(line) != n || jh_utf8_valid_prefix(line, n) != n) {
			jh_report(diag_fn, payload, JH_ERROR, path, lineno, 0, rule_id,
			          "lexicon line is not valid UTF-8");
			errors++;
			continue;
		}
		char *fields[7] = {0};
		size_t nf = split_tabs(line, fields, 7);
		if (nf > 6) {
			jh_report(diag_fn, payload, JH_ERROR, path, lineno, 0, rule_id,
			          "more than 6 columns (wrong, right, note, prev_not, next_not, safety)");
			errors++;
			continue;
		}
		int safety = -1;
		if (nf > 5 && *fields[5]) {
			if (!strcmp(fields[5], "safe"))
				safety = JH_SAFE;
			else if (!strcmp(fields[5], "unsafe"))
				safety = JH_UNSAFE;
			else {
				jh_report(diag_fn, payload, JH_ERROR, path, lineno, 0, rule_id,
				          "6th column (safety) must be safe, unsafe or empty, not '%s'", fields[5]);
				errors++;
				continue;
			}
		}
		if (!*fields[0]) {
			jh_report(diag_fn, payload, JH_ERROR, path, lineno, 0, rule_id,
			          "empty first column (the text to find)");
			errors++;
			continue;
		}
		const char *err;
		char *right = nf > 1 ? jh_unescape(fields[1], 0, &err) : NULL;
		if (nf > 1 && !right && JH_UNESCAPE_NOMEM(err)) {
			rc = JH_ERR_NOMEM;
			break;
		}
		if (nf > 1 && !right) {
			jh_report(diag_fn, payload, JH_ERROR, path, lineno, 0, rule_id, "%s", err);
			errors++;
			continue;
		}
		rc = jh_lexicon_add(lx, rule_index, fields[0], strlen(fields[0]), right,
		                    nf > 2 ? fields[2] : NULL, nf > 3 ? fields[3] : NULL,
		                    nf > 4 ? fields[4] : NULL, lineno);
		if (rc == JH_OK)
			lx->entries[lx->n_entries - 1].safety = safety;
		free(right);
		if (rc)
			break;
	}
	if (rc == JH_OK && got < 0 && errno == ENOMEM) /* not the end: the line's buffer */
		rc = JH_ERR_NOMEM;
	free(line);
	fclose(f);
	if (rc)
		return rc;
	return errors ? JH_ERR_RULES : JH_OK;
}

/* ---- automaton ---- */

static int table_put(jh_lexicon *lx, int32_t state, int32_t cp, int32_t next)
{
	if (state == 0 && cp < 0x10000) {
		int32_t **page = &lx->root_page[cp >> 8];
		if (*page == jh_lex_zero_page && !(*page = calloc(256, sizeof **page))) {
			*page = (int32_t *)jh_lex_zero_page;
			return JH_ERR_NOMEM;
		}
		(*page)[cp & 0xFF] = next;
		return JH_OK;
	}
	uint64_t key = (((uint64_t)state << 21) | (uint64_t)cp) + 1;
	size_t mask = ((size_t)1 << lx->table_bits) - 1;
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> (64 - lx->table_bits));
	while (lx->keys[i] && lx->keys[i] != key)
		i = (i + 1) & mask;
	lx->keys[i] = key;
	lx->vals[i] = next;
	return JH_OK;
}

static int new_state(jh_lexicon *lx)
{
	size_t need = lx->n_states + 1, cap = lx->cap_states;
	if (need > cap) {
		size_t c = cap;
		if (jh_grow((void **)&lx->fail, &c, need, sizeof(int32_t)))
			return -1;
		int32_t **arrs[] = {&lx->out, &lx->dict, &lx->first_child, &lx->next_sibling, &lx->label};
		for (size_t k = 0; k < sizeof arrs / sizeof *arrs; k++) {
			size_t c2 = cap;
			if (jh_grow((void **)arrs[k], &c2, need, sizeof(int32_t)))
				return -1;
		}
		lx->cap_states = c;
	}
	int32_t s = (int32_t)lx->n_states++;
	lx->fail[s] = 0;
	lx->out[s] = -1;
	lx->dict[s] = 0;
	lx->first_child[s] = -1;
	lx->next_sibling[s] = -1;
	lx->label[s] = 0;
	return s;
}

int jh_lexicon_build(jh_lexicon *lx)
{
	size_t total = 0;
	for (size_t i = 0; i < lx->n_entries; i++)
		total += lx->entries[i].wrong_len;
	/* Transitions <= code points in all words; keep the table under half full. */
	lx->table_bits = 4;
	while (((size_t)1 << lx->table_bits) < 2 * total + 16)
		lx->table_bits++;
	lx->keys = calloc((size_t)1 << lx->table_bits, sizeof *lx->keys);
	lx->vals = calloc((size_t)1 << lx->table_bits, sizeof *lx->vals);
	if (!lx->keys || !lx->vals || new_state(lx) < 0)
		return JH_ERR_NOMEM;

	/* Trie. */
	for (size_t i = 0; i < lx->n_entries; i++) {
		jh_lex_entry *e = &lx->entries[i];
		int32_t s = 0;
		size_t p = 0;
		while (p < e->wrong_len) {
			int32_t cp;
			p += jh_utf8_decode((const unsigned char *)e->wrong + p, e->wrong_len - p, &cp);
			int32_t next = jh_lex_lookup(lx, s, cp);
			if (!next) {
				next = new_state(lx);
				if (next < 0 || table_put(lx, s, cp, next))
					return JH_ERR_NOMEM;
				lx->label[next] = cp;
				lx->next_sibling[next] = lx->first_child[s];
				lx->first_child[s] = next;
				lx->n_edges++;
			}
			s = next;
		}
		/* Keep entries in file order on each state. */
		int32_t *slot = &lx->out[s];
		while (*slot >= 0)
			slot = &lx->entries[*slot].next_same;
		*slot = (int32_t)i;
	}

	/* Failure and output links, breadth first. */
	int32_t *queue = malloc(lx->n_states * sizeof *queue);
	if (!queue)
		return JH_ERR_NOMEM;
	size_t head = 0, tail = 0;
	for (int32_t c = lx->first_child[0]; c >= 0; c = lx->next_sibling[c]) {
		lx->fail[c] = 0;
		queue[tail++] = c;
	}
	while (head < tail) {
		int32_t s = queue[head++];
		for (int32_t c = lx->first_child[s]; c >= 0; c = lx->next_sibling[c]) {
			int32_t f = lx->fail[s];
			int32_t t;
			while (!(t = jh_lex_lookup(lx, f, lx->label[c])) && f)
				f = lx->fail[f];
			lx->fail[c] = t == c ? 0 : t;
			int32_t fc = lx->fail[c];
			lx->dict[c] = lx->out[fc] >= 0 ? fc : lx->dict[fc];
			queue[tail++] = c;
		}
	}
	free(queue);
	free(lx->first_child);
	free(lx->next_sibling);
	free(lx->label);
	lx->first_child = lx->next_sibling = lx->label = NULL;
	lx->built = 1;
	return JH_OK;
}
