/*===- JitExports.c - libte_py_jit: MLIR's ExecutionEngine C API ---------===*\
|*                                                                            *|
|* Part of te. The library's content is the upstream C API of the execution  *|
|* engine (mlir-c/ExecutionEngine.h: mlirExecutionEngineCreate, ...), linked  *|
|* in whole from MLIRCAPIExecutionEngine over libMLIR.so, which libTECAPI.so  *|
|* shares: the te Python package JIT-compiles modules lowered through        *|
|* libTECAPI with it. Debian's MLIR ships no shared library of it.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* An archive linked in whole needs a translation unit of its own. */
int te_py_jit_marker(void) { return 0; }
