/*
 * test_header_c99.c - raypack.h compiles alone (it is the first include)
 * as C99 under -std=c99 -pedantic -Wall -Wextra -Werror, and links and runs.
 */
#include "raypack.h"
#include "header_body.h"

int main(void) { return header_body("C99"); }
