/* check_layout.c — builtin checks of the layout family. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtins.h"
#include "charclass.h"
#include "utf8.h"

const jh_builtin_def jh_checks_layout[] = {
	{NULL, 0, NULL, NULL, NULL, NULL, NULL},
};
