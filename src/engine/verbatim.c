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
#include "stops.h"
#include "verbatim.h"

#if defined(__x86_64__) || defined(__i386__)
#define VB_X86 1
#include <immintrin.h>
#endif

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
/* JIT-compiled copies, made once the interpreter has searched
 * JH_VERBATIM_JIT_AFTER bytes (the starts it tried and the spans it
 * matched): compiling both costs 0.8 M instructions, more than a short
 * text's whole check, and the interpreter about 280 a byte more than JIT,
 * so JIT pays after about 3 KB.  Published with
 * a release store; a thread that sees NULL uses the interpreter (the same
 * spans). */
static pcre2_code *soft_jit, *hard_jit;
static size_t line_work; /* bytes the interpreter has searched */
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
	uint32_t o = PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_USE_OFFSET_LIMIT;
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

/* Per rule index: 0 not asked yet, 1 no, 2 a verbatim family. */
enum { FAMILY_CACHE = 256 };

static int rule_verbatim(unsigned char *cache, const jh_rule *const *rules, size_t idx)
{
	if (idx >= FAMILY_CACHE)
		return jh_verbatim_family(rules[idx]->family);
	if (!cache[idx])
		cache[idx] = jh_verbatim_family(rules[idx]->family) ? 2 : 1;
	return cache[idx] == 2;
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

/* Where a match can start.  Each span holds a character that says what
 * it may be (its key): a soft span a / (URLs and paths), @, \, ` or " or
 * begins with www.; a hard one begins with its key, ESC % $ or {.  What
 * comes before the first key of a soft span is ASCII letters, digits and
 * ._%+~:- (a scheme and its colon, the local part of an address, the name
 * before a path's slash, a drive letter and its colon) or ſ, which (?i)
 * matches for s (httpſ://).  So a match starts in the run of such
 * characters that ends at a key, or at the key: PCRE2 is asked for a
 * match starting there (its offset limit: the key), key after key, and
 * not at all on a line without one (most lines a finding is on).  It
 * finds what one search from the line's start finds, without trying the
 * positions in between, each of which costs a try of every alternative. */
static const unsigned char hard_key[256] = {[0x1B] = 1, ['%'] = 1, ['$'] = 1, ['{'] = 1};
static const unsigned char soft_lead[256] = {
	['.'] = 1, ['_'] = 1, ['%'] = 1, ['+'] = 1, ['~'] = 1, [':'] = 1, ['-'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
	['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
	['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
	['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1};

static int is_www(const unsigned char *t, size_t q, size_t b)
{
	return q + 4 <= b && (t[q + 1] | 0x20) == 'w' && (t[q + 2] | 0x20) == 'w' && t[q + 3] == '.';
}

/* The first key of either pattern in [p, b): one of its nine bytes, or
 * the w of a www. that ends before b; else b.  The bytes are told from
 * others by their two nibbles: bit k of key_hi[high nibble] and of
 * key_lo[low nibble] are both set for them only (bit 0: 0x1B; 1: " $ %
 * /; 2: @; 3: \; 4: `; 5: {).  AVX2 looks them up 32 at a time with
 * vpshufb, SSE2 compares sixteen with each; both read up to 36 bytes
 * from p, which lim (the text's end) must allow, and mask off what lies
 * past b. */
#define KEY_LO 20, 0, 2, 0, 2, 2, 0, 0, 0, 0, 0, 33, 8, 0, 0, 2
#define KEY_HI 0, 1, 2, 0, 4, 8, 16, 32, 0, 0, 0, 0, 0, 0, 0, 0

static inline int key_byte(unsigned char c)
{
	static const unsigned char lo[16] = {KEY_LO}, hi[16] = {KEY_HI};
	return (lo[c & 15] & hi[c >> 4]) != 0;
}

/* The key bits m (bytes) and w (www. starts) of the block at p, cut to
 * what lies before b: a key byte before it, a www. within it. */
static inline unsigned key_bits(unsigned m, unsigned w, size_t p, size_t b)
{
	size_t room = b - p;
	if (room < 32)
		m &= (1u << room) - 1;
	if (room < 35)
		w &= room >= 4 ? (1u << (room - 3)) - 1 : 0;
	return m | w;
}

#ifdef VB_X86
__attribute__((target("avx2"))) static size_t key_scan_avx2(const unsigned char *t, size_t p,
                                                            size_t b, size_t lim)
{
	const __m256i lo = _mm256_setr_epi8(KEY_LO, KEY_LO), hi = _mm256_setr_epi8(KEY_HI, KEY_HI);
	const __m256i nib = _mm256_set1_epi8(0x0F), zero = _mm256_setzero_si256();
	const __m256i x20 = _mm256_set1_epi8(0x20), w = _mm256_set1_epi8('w'), dot = _mm256_set1_epi8('.');
	for (; p < b && p + 36 <= lim; p += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(t + p));
		__m256i l = _mm256_shuffle_epi8(lo, _mm256_and_si256(v, nib));
		__m256i h = _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
		unsigned m = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(l, h), zero));
		__m256i ww = _mm256_and_si256(
			_mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(v, x20), w),
			                 _mm256_cmpeq_epi8(_mm256_or_si256(_mm256_loadu_si256((const __m256i *)(t + p + 1)), x20), w)),
			_mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(_mm256_loadu_si256((const __m256i *)(t + p + 2)), x20), w),
			                 _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(t + p + 3)), dot)));
		unsigned k = key_bits(m, (unsigned)_mm256_movemask_epi8(ww), p, b);
		if (k)
			return p + (size_t)__builtin_ctz(k);
	}
	return p;
}

static size_t key_scan_sse2(const unsigned char *t, size_t p, size_t b, size_t lim)
{
	const __m128i x20 = _mm_set1_epi8(0x20), w = _mm_set1_epi8('w'), dot = _mm_set1_epi8('.');
	for (; p < b && p + 20 <= lim; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(t + p));
		__m128i k = _mm_or_si128(
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('/')),
			                          _mm_cmpeq_epi8(v, _mm_set1_epi8('@'))),
			             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')),
			                          _mm_cmpeq_epi8(v, _mm_set1_epi8('`')))),
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
			                          _mm_cmpeq_epi8(v, _mm_set1_epi8('{'))),
			             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x1B)),
			                          _mm_cmpeq_epi8(v, _mm_set1_epi8('%')))));
		k = _mm_or_si128(k, _mm_cmpeq_epi8(v, _mm_set1_epi8('$')));
		__m128i ww = _mm_and_si128(
			_mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(v, x20), w),
			              _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(t + p + 1)), x20), w)),
			_mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(t + p + 2)), x20), w),
			              _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(t + p + 3)), dot)));
		unsigned m = key_bits((unsigned)_mm_movemask_epi8(k), (unsigned)_mm_movemask_epi8(ww), p, b);
		if (m)
			return p + (size_t)__builtin_ctz(m);
	}
	return p;
}
#endif

static size_t key_scan(const unsigned char *t, size_t p, size_t b, size_t lim)
{
#ifdef VB_X86
	p = jh_plain_impl() == 2 ? key_scan_avx2(t, p, b, lim) : key_scan_sse2(t, p, b, lim);
	if (p > b) /* a last block that had nothing before b */
		return b;
#else
	(void)lim;
#endif
	while (p < b && !key_byte(t[p]) && !((t[p] | 0x20) == 'w' && is_www(t, p, b)))
		p++;
	return p;
}

/* The keys of a line, in order (found once for both patterns). */
typedef struct {
	size_t *v;
	size_t n, cap;
} keys;

/* The first key at or after at of the soft (or hard) pattern, from index
 * *i of k on; b when there is none. */
static size_t next_key(const unsigned char *t, const keys *k, size_t *i, size_t at, size_t b,
                       int hard)
{
	for (; *i < k->n; ++*i) {
		size_t q = k->v[*i];
		if (q >= at && (hard_key[t[q]] == 1) == hard)
			return q;
	}
	return b;
}

static int ascii_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Can a match whose first key is the one at q be there at all?  The
 * bytes around a key rule out most keys of prose: a " opens a string
 * literal only with a % or \ before the next ", a ` a code span only with
 * a ` after it, an @ an address only with a name and a dot after it, a \
 * a Windows path only after a drive letter and colon; $ { % and ESC only
 * with what their patterns take next; a / is the first key of a path or
 * URL only before a name, after ~ or . or in :// (not in 读/写).
 * Nonzero: PCRE2 decides. */
static int key_may_match(const unsigned char *t, size_t q, size_t b, int hard)
{
	unsigned char n = q + 1 < b ? t[q + 1] : 0;
	switch (t[q]) {
	case '"':
		for (size_t p = q + 1; p < b && t[p] != '"'; p++)
			if (t[p] == '%' || t[p] == '\\')
				return 1;
		return 0;
	case '`':
		for (size_t p = q + 1; p < b && t[p] != '\''; p++)
			if (t[p] == '`')
				return p >= q + 2;
		return 0;
	case '@':
		return (ascii_alnum(n) || n == '-' || n >= 0x80) && q + 2 < b &&
		       memchr(t + q + 2, '.', b - q - 2);
	case '\\':
		return q >= 2 && t[q - 1] == ':' && ((t[q - 2] | 0x20) >= 'a' && (t[q - 2] | 0x20) <= 'z');
	case 0x1B:
		return n == '[';
	/* \d is any decimal digit (UCP): a byte above ASCII may begin one */
	case '$':
		return ascii_alnum(n) || n == '_' || n == '{' || n == '(' || n >= 0x80;
	case '{':
		return ascii_alnum(n) || n == '_' || n == '{' || n == '!' || n == ':' || n == '}' ||
		       n >= 0x80;
	case '%':
		return (n >= '0' && n <= '9') || n >= 0x80 ||
		       (n && strchr("(-+ #*.hlLzjtqdiouxXeEfFgGaAcspn@", n));
	case '/': /* a path's first /, before a name (/usr, src/main.c), after ~ or
	           * . (~/文档), or a scheme's :// */
	{
		unsigned char pb = q > 0 ? t[q - 1] : 0;
		return ascii_alnum(n) || n == '_' || n == '.' || n == '@' || n == '+' || n == '-' ||
		       pb == '~' || pb == '.' || (pb == ':' && n == '/');
	}
	default: /* www. */
		(void)hard;
		return 1;
	}
}

/* Where a soft match with its first key at q may start, not before at. */
static size_t soft_start(const unsigned char *t, size_t at, size_t q)
{
	while (q > at) {
		if (soft_lead[t[q - 1]])
			q--;
		else if (q - at >= 2 && t[q - 1] == 0xBF && t[q - 2] == 0xC5) /* ſ */
			q -= 2;
		else
			break;
	}
	return q;
}

/* The spans of re in [a, b), its first key at q (b: none). */
static int add_spans(spans *s, const pcre2_code *re, const char *text, const keys *k, size_t a,
                     size_t b, int hard, pcre2_match_data *md, pcre2_match_context *mc)
{
	if (!re)
		return JH_OK;
	const unsigned char *t = (const unsigned char *)text;
	size_t at = a, i = 0;
	for (size_t q = next_key(t, k, &i, at, b, hard); q < b; q = next_key(t, k, &i, at, b, hard)) {
		int rc = PCRE2_ERROR_NOMATCH;
		if (key_may_match(t, q, b, hard)) {
			size_t from = hard ? q : soft_start(t, at, q);
			pcre2_set_offset_limit(mc, q);
			rc = pcre2_match(re, (PCRE2_SPTR)text, b, from, PCRE2_NO_UTF_CHECK, md, mc);
			/* what the interpreter went through: the starts it tried, the match */
			size_t to = rc >= 0 ? pcre2_get_ovector_pointer(md)[1] : q + 1;
			if (__atomic_load_n(&jit_state, __ATOMIC_ACQUIRE) != 2 && to > from)
				__atomic_add_fetch(&line_work, to - from, __ATOMIC_RELAXED);
		}
		if (rc == PCRE2_ERROR_NOMEMORY)
			return JH_ERR_NOMEM;
		if (rc == PCRE2_ERROR_NOMATCH) { /* none up to this key: on to the next */
			at = q + 1;
			continue;
		}
		if (rc < 0)
			break;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		if (ov[1] <= ov[0]) { /* no pattern matches empty; be safe anyway */
			at = ov[0] + 1;
			while (at < b && ((unsigned char)text[at] & 0xC0) == 0x80)
				at++;
		} else {
			if (jh_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
				return JH_ERR_NOMEM;
			/* a `code` span ends at its backtick, whatever is in it */
			size_t end = hard || text[ov[0]] == '`' ? ov[1] : soft_end(text, ov[0], ov[1], b);
			s->v[s->n++] = (span){ov[0], end, hard};
			at = end;
		}
	}
	return JH_OK;
}

/* The line around pos: jh_line_bounds, by memrchr and memchr. */
static void line_around(const char *text, size_t len, size_t pos, size_t *a, size_t *b)
{
	if (pos > len)
		pos = len;
	const char *p = pos ? memrchr(text, '\n', pos) : NULL;
	const char *q = memchr(text + pos, '\n', len - pos);
	*a = p ? (size_t)(p - text) + 1 : 0;
	*b = q ? (size_t)(q - text) : len;
}

/* What line_spans matches with, made on its first use, and the keys of
 * the line. */
typedef struct {
	pcre2_match_data *md;
	pcre2_match_context *mc;
	keys k;
} matcher;

/* The spans of the line around pos (cached: findings come in order). */
static int line_spans(spans *s, const char *text, size_t len, size_t pos, matcher *m)
{
	if (s->line_end > s->line_start && pos >= s->line_start && pos < s->line_end)
		return JH_OK;
	size_t a, b;
	line_around(text, len, pos, &a, &b);
	s->n = 0;
	s->line_start = a;
	s->line_end = b + 1; /* a point at the line's end belongs to it */
	const unsigned char *t = (const unsigned char *)text;
	m->k.n = 0; /* most lines: none, in one look */
	for (size_t q = a; (q = key_scan(t, q, b, len)) < b; q++) {
		if (jh_grow((void **)&m->k.v, &m->k.cap, m->k.n + 1, sizeof *m->k.v))
			return JH_ERR_NOMEM;
		m->k.v[m->k.n++] = q;
	}
	if (!m->k.n)
		return JH_OK; /* no span can be there: no pattern to match */
	if (compile_patterns())
		return JH_ERR_NOMEM;
	if (!m->md && !(m->md = pcre2_match_data_create(2, NULL)))
		return JH_ERR_NOMEM;
	if (!m->mc && !(m->mc = pcre2_match_context_create(NULL)))
		return JH_ERR_NOMEM;
	if (__atomic_load_n(&jit_state, __ATOMIC_ACQUIRE) != 2 &&
	    __atomic_load_n(&line_work, __ATOMIC_RELAXED) >= JH_VERBATIM_JIT_AFTER)
		jit_patterns();
	int rc = add_spans(s, code_for(soft_re, &soft_jit), text, &m->k, a, b, 0, m->md, m->mc);
	if (rc == JH_OK)
		rc = add_spans(s, code_for(hard_re, &hard_jit), text, &m->k, a, b, 1, m->md, m->mc);
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
	matcher m = {NULL, NULL, {NULL, 0, 0}};
	unsigned char fam[FAMILY_CACHE] = {0};
	spans s = {0};
	int rc = JH_OK;
	size_t w = first;
	for (size_t i = first; i < out->count; i++) {
		jh_finding *f = &out->items[i];
		long idx = f->rule_index;
		if (rc == JH_OK && idx >= 0 && (size_t)idx < n_rules && rule_verbatim(fam, rules, (size_t)idx)) {
			rc = line_spans(&s, text, len, f->byte_start, &m);
			if (rc == JH_OK && s.n && finding_inside(f, text, s.v, s.n))
				continue; /* its strings stay in the list's store */
		}
		out->items[w++] = *f;
	}
	out->count = w;
	free(s.v);
	pcre2_match_data_free(m.md);
	pcre2_match_context_free(m.mc);
	free(m.k.v);
	return rc;
}
