/*
 * test_header_cpp.cpp - raypack.h compiles alone (it is the first include)
 * as C++ under -pedantic -Wall -Wextra -Werror: extern "C" linkage, no C-only
 * constructs.  Built only where a C++ compiler for the host exists.
 */
#include "raypack.h"
#include "header_body.h"

int main() { return header_body("C++"); }
