/* diff.c — a unified diff of a file before and after fixing.
 *
 * Fixes change characters inside lines and, rarely, join or split lines, so
 * the two texts stay aligned almost everywhere.  A full Myers diff would be
 * quadratic in memory on a file whose every line changed; instead lines are
 * matched greedily, and where they differ we look a bounded window ahead on
 * each side for the next common line (linear time, exact for edits that stay
 * within the window). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CONTEXT 3
#define WINDOW 64

typedef struct {
	const char *s;
	size_t n; /* with its line break */
} line;

static line *split(const char *t, size_t len, size_t *count)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += t[i] == '\n';
	line *v = malloc((n + 2) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0, start = 0;
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n') {
			v[k++] = (line){t + start, i + 1 - start};
			start = i + 1;
		}
	if (start < len)
		v[k++] = (line){t + start, len - start};
	*count = k;
	return v;
}

static int same(const line *a, const line *b)
{
	return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

/* An operation: ' ' keep, '-' delete from a, '+' insert from b. */
typedef struct {
	char op;
	size_t ai, bi;
} edit_op;

static void emit_line(FILE *out, char op, const line *l)
{
	fputc(op, out);
	fwrite(l->s, 1, l->n, out);
	if (!l->n || l->s[l->n - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", out);
}

static void print_hunks(FILE *out, const edit_op *ops, size_t n, const line *a, const line *b)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && ops[i].op == ' ')
			i++;
		if (i == n)
			break;
		size_t start = i > CONTEXT ? i - CONTEXT : 0;
		/* extend the hunk while changes are within 2*CONTEXT of each other */
		size_t end = i, gap = 0;
		for (size_t j = i; j < n; j++) {
			if (ops[j].op == ' ') {
				if (++gap > 2 * CONTEXT)
					break;
			} else {
				gap = 0;
				end = j;
			}
		}
		size_t stop = end + CONTEXT + 1 < n ? end + CONTEXT + 1 : n;
		size_t a0 = ops[start].ai, b0 = ops[start].bi, ac = 0, bc = 0;
		for (size_t j = start; j < stop; j++) {
			ac += ops[j].op != '+';
			bc += ops[j].op != '-';
		}
		fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", ac ? a0 + 1 : a0, ac, bc ? b0 + 1 : b0, bc);
		for (size_t j = start; j < stop; j++)
			emit_line(out, ops[j].op, ops[j].op == '+' ? &b[ops[j].bi] : &a[ops[j].ai]);
		i = stop;
	}
}

void print_unified_diff(FILE *out, const char *path, const char *at, size_t alen, const char *bt,
                        size_t blen)
{
	size_t na, nb;
	line *a = split(at, alen, &na), *b = split(bt, blen, &nb);
	edit_op *ops = malloc((na + nb + 1) * sizeof *ops);
	if (!a || !b || !ops) {
		file_msg(stderr, path, "out of memory making the diff\n");
		goto done;
	}
	size_t i = 0, j = 0, k = 0;
	while (i < na || j < nb) {
		if (i < na && j < nb && same(&a[i], &b[j])) {
			ops[k++] = (edit_op){' ', i++, j++};
			continue;
		}
		/* nearest resynchronisation within the window */
		size_t best_da = 0, best_db = 0, best = (size_t)-1;
		for (size_t da = 0; da <= WINDOW && i + da <= na; da++)
			for (size_t db = 0; db <= WINDOW && j + db <= nb && da + db < best; db++) {
				if (da == 0 && db == 0)
					continue;
				if (i + da < na && j + db < nb && same(&a[i + da], &b[j + db])) {
					best = da + db;
					best_da = da;
					best_db = db;
				}
			}
		if (best == (size_t)-1) { /* nothing common nearby: replace one by one */
			best_da = i < na ? 1 : 0;
			best_db = j < nb ? 1 : 0;
		}
		for (size_t d = 0; d < best_da; d++)
			ops[k++] = (edit_op){'-', i++, j};
		for (size_t d = 0; d < best_db; d++)
			ops[k++] = (edit_op){'+', i, j++};
	}
	fprintf(out, "--- %s\n+++ %s\n", path, path);
	print_hunks(out, ops, k, a, b);
done:
	free(a);
	free(b);
	free(ops);
}
