/* charclass.c — names of the code point classes for rule parameters. */
#include <string.h>
#include "charclass.h"

const int32_t jh_open_marks[JH_PAIRS] = {0x201C, 0x2018, 0x300C, 0x300E, 0xFF08, 0x300A, 0x3010};
const int32_t jh_close_marks[JH_PAIRS] = {0x201D, 0x2019, 0x300D, 0x300F, 0xFF09, 0x300B, 0x3011};

static const struct {
	const char *name;
	uint32_t cls;
} names[] = {
	{"han", JH_C_HAN},           {"cjk-punct", JH_C_CJK_PUNCT}, {"ascii-punct", JH_C_ASCII_PUNCT},
	{"latin", JH_C_LATIN},       {"digit", JH_C_DIGIT},         {"fullwidth-alnum", JH_C_FULLWIDTH_ALNUM},
	{"space", JH_C_SPACE},       {"newline", JH_C_NEWLINE},     {"invisible", JH_C_INVISIBLE},
	{"private-use", JH_C_PUA},   {"kana", JH_C_KANA},           {"other", JH_C_OTHER},
};

uint32_t jh_class_parse(const char *name)
{
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].cls;
	return 0;
}
