/*===- te-layout.c - downstream user of the te C API --------------*- C -*-===*\
|*                                                                            *|
|* Part of te.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Parses a module and prints the buffers of every !te.qtensor result on the
 * module's target, through the C API (the same output as ../cxx). */

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "te-c/Attributes.h"
#include "te-c/Dialect.h"
#include "te-c/Types.h"

#include <stdio.h>
#include <stdlib.h>

static void print(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, file) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text)
    text[size] = '\0';
  fclose(file);
  return text;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: te-layout-c <file.mlir>\n");
    return 2;
  }
  char *text = readFile(argv[1]);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__te__(), ctx);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(module))
    return 1;

  MlirTETarget target = mlirTEModuleGetTarget(module);
  printf("target %s\n", target == MlirTETargetSM100 ? "sm_100" : "sm_90");
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      MlirType type = mlirValueGetType(mlirOperationGetResult(op, r));
      if (!mlirTypeIsATEQTensor(type))
        continue;
      intptr_t n = mlirTEQTensorTypeGetNumBuffers(type, target);
      printf("value ");
      mlirTypePrint(type, print, NULL);
      printf(": %ld buffers\n", (long)n);
      for (intptr_t i = 0; i < n; ++i) {
        MlirStringRef name = mlirTEQTensorTypeGetBufferName(type, target, i);
        printf("  %.*s ", (int)name.length, name.data);
        mlirTypePrint(mlirTEQTensorTypeGetBufferType(type, target, i), print,
                      NULL);
        printf("\n");
      }
    }
  }
  printf("done\n");
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
