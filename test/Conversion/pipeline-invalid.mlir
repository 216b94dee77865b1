// RUN: not te-opt %s --te-pipeline="target=sm_80" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not te-opt %s --te-pipeline="target=sm_90" 2>&1 | FileCheck %s --check-prefix=MISMATCH

// The error alone, without the module printed after it.
// TARGET: te-set-target: target must be cpu, sm_90 or sm_100, got 'sm_80'
// TARGET-NOT: note
// TARGET-NOT: func.func
// MISMATCH: module has te.target = #te.target<sm_100> but the pipeline targets sm_90
// MISMATCH-NOT: note
// MISMATCH-NOT: func.func
module attributes {te.target = #te.target<sm_100>} {
  func.func @f(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
    return %x : tensor<32x64xf32>
  }
}
