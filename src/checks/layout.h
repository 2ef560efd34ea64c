/* layout.h — shared by the layout family's files: the survey of the
 * lines (layout_survey.c: one pass at finish() that every layout check
 * shares, with what the checks know of a line) and the checks' decisions
 * and findings (check_layout.c).  Not installed. */
#ifndef JH_LAYOUT_H
#define JH_LAYOUT_H

#include <string.h>
#include "builtins.h"

#define IDSP "\xE3\x80\x80" /* U+3000 IDEOGRAPHIC SPACE, the paragraph indent */

/* One line of the text: [start, end) without its line break; next is where
 * the following line starts.  crlf: the break is \r\n. */
typedef struct {
	size_t start, end, next;
	int crlf, last;
} line_t;

/* What a line is indented with. */
enum { IND_NONE, IND_IDSP, IND_SPACES, IND_TAB, IND_MIXED };

typedef struct {
	int kind;
	size_t n;      /* characters of indentation */
	size_t bytes;  /* its length in bytes */
} indent_t;

typedef struct {
	size_t lines;                  /* non-blank lines */
	size_t none, idsp2;
	size_t by_kind[IND_MIXED + 1];
	indent_t dominant;             /* the indent most lines use, kind NONE if none */
	char dom_text[64];
} indent_stats;

/* The exact indents counted: (kind, n) for n up to 8. */
typedef size_t indent_counts[IND_MIXED + 1][9];

/* How the document ends its lines of prose (with a Han character and a
 * clause mark).  Hard-wrapped text (manual pages, books cut at a width)
 * stops many on a Han character with the next line unindented: of three
 * or more lines of prose, more than one in twenty.  Text of one
 * paragraph a line ends nearly all of them on a mark: at most one in four
 * mid-sentence (in ，、 or a Han character), at most one in twenty on a
 * Han character.  A paragraph cut now and then (the damage the rule is
 * for) leaves its second half indented, and counts for neither. */
typedef struct {
	int hard_wrapped, one_line;
} wrap_survey;

/* A break layout.paragraph-split may report, as far as the lines around
 * it say (see split_finish): what is left to decide needs the whole
 * document (its indent habit, the wrap survey). */
enum {
	CAND_MARK,     /* after an opening mark: a fix */
	CAND_COMMA_BLANK, /* after ，or 、 and blank lines */
	CAND_COMMA,    /* after ，or 、, the next line indented with 　 (or not: wants one_line) */
	CAND_CUT,      /* a word cut: wants an indented document */
	CAND_BARE      /* no mark at the end: wants a document not hard-wrapped */
};

typedef struct {
	size_t start, end; /* the finding: the break to the body of the next line */
	unsigned char kind;
	unsigned char unindented; /* the next line has no indent */
} split_cand;

/* An unindented line and the non-blank line before it (indent-missing). */
typedef struct {
	size_t start, end, prev_start, prev_end;
	int have_prev;
} bare_line;

/* The runs of two or more blank lines (a run of one is never too many). */
typedef struct {
	size_t start, after, n; /* its first line, the line after it, its length */
} blank_run;

/* More unindented lines than this: indent-missing walks the text itself
 * (in an indented document, where it has findings to emit). */
enum { BARE_LINES_MAX = 4096 };

typedef struct {
	int err;
	size_t crlf, lf;               /* line-endings: breaks of each kind */
	indent_stats ind;              /* the indent forms */
	indent_counts exact;
	size_t runs[5], runs_total;    /* blank-lines: runs of 1, 2, 3, 4+ blank lines */
	blank_run *br;
	size_t n_br, cap_br, longest_run;
	size_t with_blank, without;    /* merged-paragraph: paragraphs after a blank line, or not */
	bare_line *bare;               /* indent-missing: the unindented lines */
	size_t n_bare, cap_bare;
	int bare_overflow;
	split_cand *cand;              /* paragraph-split */
	size_t n_cand, cap_cand;
	wrap_survey wrap;
} layout_survey;

/* ---- layout_survey.c ---- */
/* The survey of run's document: the shared one, made by the first check
 * that asks; *own is set when it is this run's alone, to be given back
 * to layout_survey_put.  NULL (run->err set) on failure. */
layout_survey *layout_survey_get(jh_brun *run, int *own);
void layout_survey_put(layout_survey *s, int own);
/* What the checks know of a line (the survey's own, see layout_survey.c). */
indent_t layout_indent_of(const char *text, const line_t *l);
int layout_has_han(const char *text, const line_t *l);
int layout_looks_like_heading(const char *text, const line_t *l);
int layout_ends_paragraph(const char *text, const line_t *l);
int layout_starts_as_tail(const char *text, size_t p, size_t e);
int layout_line_blank(const char *text, const line_t *l);

#endif
