// RUN: not %stock-mlir-opt %s --load-dialect-plugin=%te-plugin \
// RUN:   --load-pass-plugin=%te-plugin --te-print-buffers 2>&1 | FileCheck %s

// Plugin passes are registered after mlir-opt parsed its flags
// (mlir-anchors.md §2.7 pitfall 14): they are reachable with --pass-pipeline
// only. This test pins that limitation, which docs/guide/embedding.md states.

// CHECK: Unknown command line argument '--te-print-buffers'
func.func @f() {
  return
}
