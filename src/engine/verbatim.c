/* verbatim.c — the parts of a line that are not prose: URLs, e-mail
 * addresses, paths, `code` spans, format specifiers and terminal control sequences.  A spacing, punctuation, script
 * or typo rule never edits them (a space in a URL breaks it, a 。 in a path
 * names another file); censor rules still see them (censor.url is about
 * URLs).
 *
 * The spans are found line by line, only on the lines that have a finding
 * of those families, so a text without any costs nothing.  Patterns are
 * PCRE2 (no library finds "the URL in this Chinese sentence": the end of a
 * URL among Han characters is a convention, written down here). */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "charclass.h"
#include "findings.h"
#include "utf8.h"
#include "util.h"
#include "verbatim.h"

/* Characters that end a URL or a path: white space, CJK and full-width
 * punctuation, quotes and brackets of prose. */
#define STOP "\\s<>\"'`\\x{3000}-\\x{303F}\\x{FF01}-\\x{FF0F}\\x{FF1A}-\\x{FF20}" \
             "\\x{FF3B}-\\x{FF40}\\x{FF5B}-\\x{FF65}\\x{2018}-\\x{201F}\\x{2026}\\x{2014}"

/* The Chinese top-level domains of IANA's root zone (IDN), longest first
 * where one begins another. */
#define HAN_TLD "(?:中国|中國|中文网|公司|网络|網絡|网址|網址|网站|网店|在线|在綫|集团|商城|商标|商店|测试|測試|" \
	"香港|台湾|台灣|澳门|澳門|新加坡|政务|公益|移动|我爱你|手机|游戏|企业|信息|广东|佛山|时尚|微博|" \
	"购物|世界|娱乐|健康|招聘|餐厅|八卦|机构|组织机构|慈善|大众汽车|嘉里大酒店|嘉里|天主教|工行|联通|" \
	"通販|点看|點看|香格里拉|电讯盈科|亚马逊|谷歌|诺基亚|飞利浦|大拿|政府)"

/* Spans a rule may touch at their edges (a space before a URL is the
 * copywriting convention) but not inside. */
static const char soft_pattern[] =
	/* a URL: scheme or www., up to a stop; a final . , ; : ! ? ) ] is prose */
	"(?i:(?:https?|ftp|file|git|ssh|sftp)://|www\\.)[^" STOP "]*[^" STOP ".,;:!?)\\]]"
	/* an e-mail address; its domain may be Han (例子.com), and so may its
	 * top level (例子.中国, 网址.公司: the Chinese IDN top-level domains;
	 * the prose after one is Han too, so it ends where the name does).
	 * Its local part may be Han (张三@例子.中国): that cannot be told from
	 * the prose before it, so the span then begins at the @, which is
	 * enough to keep the rules off the domain's dots */
	"|[A-Za-z0-9._%+-]*@[\\p{L}\\p{N}-]+(?:\\.[\\p{L}\\p{N}-]+)*\\.(?:[A-Za-z]{2,}(?![A-Za-z])|" HAN_TLD ")"
	/* an absolute or home path of two parts or more (/usr/share/文档/README);
	 * a | ends it, as in a table row (|/home/user|普通用户权限) */
	"|(?<![A-Za-z0-9_./\\\\])(?:~|\\.{1,2})?/[A-Za-z0-9_.@+-]+(?:/[^" STOP "/,;:!?)\\]|]+)+/?"
	"|(?<![A-Za-z0-9_./\\\\])(?:~|\\.{1,2})/[^" STOP "/,;:!?)\\]|]+"
	/* a relative path of ASCII parts (src/main.c, TCP/IP) */
	"|(?<![A-Za-z0-9_./\\\\])[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.@+-]+)+"
	/* a Windows path */
	"|(?<![A-Za-z0-9])[A-Za-z]:\\\\[^" STOP ",;:!?)\\]]*"
	/* a code span of plain text, `git提交` (Markdown's are cut out by the
	 * parser): backticks around at most 200 characters on one line.  Its
	 * inside is code: a space or a 。 put there changes what it names.  No
	 * ' in it: `quote' is the quoting of manual pages and TeX, and between
	 * two of them (带有`-nonormalize'的`-user'选项) is prose; nor a
	 * backtick next to another: 反向引号 (``) is the mark itself; nor
	 * one right after a letter or digit, a closing one (通过page`设定…
	 * 通过width`设定: the prose between two such is no code) */
	"|(?<![`A-Za-z0-9])`[^`'\\n]{1,200}`(?!`)"
	/* a string literal of code in plain text, printf("%s:%d,出错了\n"):
	 * ASCII quotes around at most 200 characters on one line holding a
	 * format specifier or a backslash escape, which prose does not (a
	 * comma there is the program's, not the prose's) */
	"|\"(?=[^\"\\n]{0,200}(?:%[-+ #0-9.*]*[diouxXeEfgcsp]|\\\\[ntr0\"\\\\]))"
	"(?:[^\"\\\\\\n]|\\\\.){1,200}\"";

/* Spans not even touched at their edges: what a program fills in, so the
 * text around it is not ours to space (%s个文件 may read 3个文件); and
 * what a terminal reads, invisible in the text around it. */
static const char hard_pattern[] =
	/* an ANSI control sequence (ECMA-48 CSI: ESC [ 35;1m, ESC [ m, the
	 * colours of fortunes-zh): deleting its ESC leaves "[35;1m" behind, a
	 * space after its m (the Latin–Han spacing) lands inside the prose */
	"\\x1B\\[[\\x30-\\x3F]*[\\x20-\\x2F]*[\\x40-\\x7E]|"
	/* and one cut short by the next ESC (ESC [; ESC [34;1m in fortunes-zh):
	 * a terminal drops it; deleting its ESC would show the "[;" */
	"\\x1B\\[[\\x30-\\x3F]*[\\x20-\\x2F]*(?=\\x1B)|"
	/* printf: %s %d %-5.2f %1$s %(name)s %lld */
	"%(?:\\d+\\$|\\([A-Za-z_][A-Za-z0-9_]*\\))?[-+ #0]*(?:\\d+|\\*)?(?:\\.(?:\\d+|\\*))?"
	"(?:hh|h|ll|l|L|z|j|t|q)?[diouxXeEfFgGaAcspn@]"
	/* shell and regex replacements: $1 ${name} $name (not a price, $100),
	 * and a shell's command substitution $(pwd), which prints its output
	 * there: $(nproc)个线程 reads 4个线程 */
	"|\\$(?:\\d(?!\\d)|\\{[^{}\\s]+\\}|[A-Za-z_][A-Za-z0-9_]*|\\([^()\\n]{1,100}\\))"
	/* Python, .NET, ICU, Mustache: {name} {0} {} {name!r:>10} {{name}} */
	"|\\{\\{[^{}\\n]{1,64}\\}\\}"
	"|\\{(?:[A-Za-z_][A-Za-z0-9_.]*|\\d*)(?:![rsa])?(?::[^{}\\s]{0,16})?\\}";

static pcre2_code *soft_re, *hard_re;
static int compiled; /* both are, once and for the process (read with atomics) */
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;
/* JIT-compiled copies, made once the lines looked at reach
 * JH_VERBATIM_JIT_AFTER bytes: compiling both costs 0.8 M instructions,
 * more than a short text's whole check, and the interpreter about 280 a
 * byte of line more than JIT, so JIT pays after about 3 KB.  Published with
 * a release store; a thread that sees NULL uses the interpreter (the same
 * spans). */
static pcre2_code *soft_jit, *hard_jit;
static size_t line_work;
static int jit_state; /* 0 not yet, 1 a thread is at it, 2 done */

/* JH_OK, or JH_ERR_NOMEM (then the next check tries again). */
static int compile_patterns(void)
{
	if (__atomic_load_n(&compiled, __ATOMIC_ACQUIRE))
		return JH_OK;
	pthread_mutex_lock(&compile_lock);
	int err;
	PCRE2_SIZE off;
	/* the text may hold invalid UTF-8 (it is reported, never mended):
	 * matched without this, such bytes made the JIT code read out of
	 * bounds (a libFuzzer crash) */
	uint32_t o = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF;
	if (!soft_re)
		soft_re = pcre2_compile((PCRE2_SPTR)soft_pattern, PCRE2_ZERO_TERMINATED, o, &err, &off, NULL);
	if (!hard_re)
		hard_re = pcre2_compile((PCRE2_SPTR)hard_pattern, PCRE2_ZERO_TERMINATED, o, &err, &off, NULL);
	int ok = soft_re && hard_re; /* the patterns are fixed: only memory can fail them */
	if (ok)
		__atomic_store_n(&compiled, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&compile_lock);
	return ok ? JH_OK : JH_ERR_NOMEM;
}

/* A JIT copy of re into *out (left NULL where pcre2 has no JIT for it:
 * the interpreter then); nonzero when memory failed it. */
static int jit_copy(const pcre2_code *re, pcre2_code **out)
{
	if (__atomic_load_n(out, __ATOMIC_ACQUIRE))
		return 0;
	pcre2_code *c = pcre2_code_copy(re);
	int rc = c ? pcre2_jit_compile(c, PCRE2_JIT_COMPLETE) : PCRE2_ERROR_NOMEMORY;
	if (rc != 0) {
		pcre2_code_free(c);
		return rc == PCRE2_ERROR_NOMEMORY;
	}
	__atomic_store_n(out, c, __ATOMIC_RELEASE);
	return 0;
}

/* Make the JIT copies that are not there yet; one thread at a time, the
 * others go on with what is published.  A copy that memory failed is
 * tried again by a later line. */
static void jit_patterns(void)
{
	int idle = 0;
	if (!__atomic_compare_exchange_n(&jit_state, &idle, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	int again = jit_copy(soft_re, &soft_jit);
	again |= jit_copy(hard_re, &hard_jit);
	__atomic_store_n(&jit_state, again ? 0 : 2, __ATOMIC_RELEASE);
}

void jh_verbatim_jit_now(void)
{
	if (compile_patterns() == JH_OK && __atomic_load_n(&jit_state, __ATOMIC_ACQUIRE) != 2)
		jit_patterns();
}

/* The code to match a line with: the JIT copy once there is one. */
static const pcre2_code *code_for(const pcre2_code *re, pcre2_code **jit)
{
	const pcre2_code *j = __atomic_load_n(jit, __ATOMIC_ACQUIRE);
	return j ? j : re;
}

int jh_verbatim_family(const char *family)
{
	return family && (!strcmp(family, "punct") || !strcmp(family, "layout") ||
	                  !strcmp(family, "script") || !strcmp(family, "typo"));
}

typedef struct {
	size_t start, end;
	int hard;
} span;

typedef struct {
	span *v;
	size_t n, cap;
	size_t line_start, line_end; /* the line these spans are of */
} spans;

/* Is the character at p (before b) Han, as the class scan says? */
static int han_at(const char *text, size_t p, size_t b)
{
	int32_t cp = -1;
	if (p >= b)
		return 0;
	jh_utf8_decode((const unsigned char *)text + p, b - p, &cp);
	return cp >= 0 && (jh_class_of(cp) & JH_C_HAN);
}

/* Where a URL or path [s, e) really ends: Han is allowed in them
 * (/usr/share/文档/README, https://example.com/这是URL文件名.html), so
 * the pattern runs on through the Han after them; a file name's extension
 * (1-8 letters or digits after a dot) right before Han, or before a , or ;
 * and Han, ends it there: nginx.conf中, 最新版.zip,请自取, example.com上.
 * (A URL or path going on in Han right after an extension is rare; prose
 * after a file name is not.) */
static size_t soft_end(const char *text, size_t s, size_t e, size_t b)
{
	for (size_t p = s; p < e; p++) {
		if (text[p] != '.')
			continue;
		size_t q = p + 1;
		while (q < e && q - p <= 8 && ((text[q] >= 'a' && text[q] <= 'z') ||
		                              (text[q] >= 'A' && text[q] <= 'Z') ||
		                              (text[q] >= '0' && text[q] <= '9')))
			q++;
		if (q == p + 1 || q - p > 9)
			continue;
		/* q may be the line's end, and that the text's end: no byte there */
		if (han_at(text, q, b) ||
		    (q < b && (text[q] == ',' || text[q] == ';') && han_at(text, q + 1, b)))
			return q;
	}
	return e;
}

static int add_spans(spans *s, const pcre2_code *re, const char *text, size_t a, size_t b, int hard,
                     pcre2_match_data *md)
{
	if (!re)
		return JH_OK;
	size_t at = a;
	while (at < b) {
		int rc = pcre2_match(re, (PCRE2_SPTR)text, b, at, PCRE2_NO_UTF_CHECK, md, NULL);
		if (rc == PCRE2_ERROR_NOMEMORY)
			return JH_ERR_NOMEM;
		if (rc < 0)
			break;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		if (ov[1] <= ov[0]) { /* no pattern matches empty; be safe anyway */
			at = ov[0] + 1;
			while (at < b && ((unsigned char)text[at] & 0xC0) == 0x80)
				at++;
			continue;
		}
		if (jh_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
			return JH_ERR_NOMEM;
		/* a `code` span ends at its backtick, whatever is in it */
		size_t end = hard || text[ov[0]] == '`' ? ov[1] : soft_end(text, ov[0], ov[1], b);
		s->v[s->n++] = (span){ov[0], end, hard};
		at = end;
	}
	return JH_OK;
}

/* The spans of the line around pos (cached: findings come in order). */
static int line_spans(spans *s, const char *text, size_t len, size_t pos, pcre2_match_data *md)
{
	if (s->line_end > s->line_start && pos >= s->line_start && pos < s->line_end)
		return JH_OK;
	size_t a, b;
	jh_line_bounds(text, len, pos, &a, &b);
	s->n = 0;
	s->line_start = a;
	s->line_end = b + 1; /* a point at the line's end belongs to it */
	if (__atomic_load_n(&jit_state, __ATOMIC_ACQUIRE) != 2 &&
	    __atomic_add_fetch(&line_work, b - a + 1, __ATOMIC_RELAXED) >= JH_VERBATIM_JIT_AFTER)
		jit_patterns();
	int rc = add_spans(s, code_for(soft_re, &soft_jit), text, a, b, 0, md);
	if (rc == JH_OK)
		rc = add_spans(s, code_for(hard_re, &hard_jit), text, a, b, 1, md);
	return rc;
}

/* Does [fs, fe) (a point when equal) edit inside a span? */
static int inside(const span *v, size_t n, size_t fs, size_t fe)
{
	for (size_t i = 0; i < n; i++) {
		size_t a = v[i].start, b = v[i].end;
		if (fe > fs ? fs < b && fe > a : (v[i].hard ? a <= fs && fs <= b : a < fs && fs < b))
			return 1;
	}
	return 0;
}

/* Does the edit of text[s, t) to r[0, rl) change a byte inside a span?  Only
 * what it really changes counts: not the bytes its replacement keeps at
 * either end (m → "m " after an address is an insertion at the address's
 * end, not an edit of its last letter), nor a span it keeps whole in its
 * middle ("(见 ESC[35m“某节”ESC[m)" → "（见 …）" edits the two brackets
 * only: what is on either side of the span is compared on its own). */
static int edit_hits(const char *text, size_t s, size_t t, const char *r, size_t rl,
                     const span *v, size_t n)
{
	size_t i = 0, j = 0;
	while (s + i < t && i < rl && text[s + i] == r[i])
		i++;
	while (t - j > s + i && rl - j > i && text[t - 1 - j] == r[rl - 1 - j])
		j++;
	s += i;
	t -= j;
	r += i;
	rl -= i + j;
	if (s == t && !rl)
		return 0; /* nothing changed here */
	for (size_t k = 0; k < n; k++) {
		size_t a = v[k].start, b = v[k].end;
		if (a < s || b > t || b <= a)
			continue;
		const char *m = memmem(r, rl, text + a, b - a);
		if (!m)
			continue;
		size_t q = (size_t)(m - r);
		return edit_hits(text, s, a, r, q, v, n) ||
		       edit_hits(text, b, t, m + (b - a), rl - q - (b - a), v, n);
	}
	return inside(v, n, s, t);
}

static int finding_inside(const jh_finding *f, const char *text, const span *v, size_t n)
{
	if (!f->n_edits)
		return inside(v, n, f->byte_start, f->byte_end);
	for (size_t j = 0; j < f->n_edits; j++) {
		const jh_edit *e = &f->edits[j];
		const char *r = e->replacement ? e->replacement : "";
		if (edit_hits(text, e->byte_start, e->byte_end, r, strlen(r), v, n))
			return 1;
	}
	return 0;
}

int jh_verbatim_drop(jh_findings *out, size_t first, const char *text, size_t len,
                     const jh_rule *const *rules, size_t n_rules)
{
	if (compile_patterns())
		return JH_ERR_NOMEM;
	pcre2_match_data *md = NULL;
	spans s = {0};
	int rc = JH_OK;
	size_t w = first;
	for (size_t i = first; i < out->count; i++) {
		jh_finding *f = &out->items[i];
		long idx = f->rule_index;
		if (rc == JH_OK && idx >= 0 && (size_t)idx < n_rules && jh_verbatim_family(rules[idx]->family)) {
			if (!md && !(md = pcre2_match_data_create(2, NULL)))
				rc = JH_ERR_NOMEM;
			if (rc == JH_OK)
				rc = line_spans(&s, text, len, f->byte_start, md);
			if (rc == JH_OK && s.n && finding_inside(f, text, s.v, s.n))
				continue; /* its strings stay in the list's store */
		}
		out->items[w++] = *f;
	}
	out->count = w;
	free(s.v);
	pcre2_match_data_free(md);
	return rc;
}
