// te-raise-attention's statistics over raise-attention.mlir (fourteen
// chains raised) and raise-attention-near-misses.mlir (fourteen near
// misses; the two products without a softmax are not counted), each file
// read as one module. Counted only where LLVM counts statistics (lit
// feature pass-statistics).
//
// REQUIRES: pass-statistics
// RUN: sed -e "s/expected-remark.*//" %S/raise-attention.mlir | te-opt --te-raise-attention=remarks=false -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=RAISED
// RUN: sed -e "s/expected-remark.*//" %S/raise-attention-near-misses.mlir | te-opt --te-raise-attention=remarks=false -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEAR

// RAISED: Pass statistics report
// RAISED: TERaiseAttention
// RAISED-DAG: (S) 0 near-misses
// RAISED-DAG: (S) 14 raised

// NEAR: Pass statistics report
// NEAR: TERaiseAttention
// NEAR-DAG: (S) 14 near-misses
// NEAR-DAG: (S) 0 raised
