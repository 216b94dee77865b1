/*===- EmptyExports.c - source of the TECAPI shared library -------*- C -*-===*\
|*                                                                            *|
|* Part of te.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* libTECAPI.so is made of whole archives (the te C API and the upstream C API
 * it carries); CMake needs one source file to build a library from. */
int tecapi_shared_library_marker_;
