// A cf.switch on a run-time selector picks what a function does with a
// tensor: the cases, the default, and tensors passed as block arguments.
// Buffer deallocation (te-deallocate) turns the switch into a chain of
// cf.cond_br first: upstream's ownership-based deallocation takes at most
// two successors per branch.
//
// RUN: te-run %s --entry pick --dynamic-dim 6 --fill 0=3 --fill 1=0 | FileCheck %s --check-prefix=NEG
// RUN: te-run %s --entry pick --dynamic-dim 6 --fill 0=3 --fill 1=7 | FileCheck %s --check-prefix=SQUARE
// RUN: te-run %s --entry pick --dynamic-dim 6 --fill 0=3 --fill 1=3 | FileCheck %s --check-prefix=SAME
// RUN: te-run %s --entry pick --dynamic-dim 6 --fill 0=3 --fill 1=-1 | FileCheck %s --check-prefix=SAME
// NEG: result 0: f32[6] min -3 max -3
// SQUARE: result 0: f32[6] min 9 max 9
// SAME: result 0: f32[6] min 3 max 3
//
// The chain: one comparison per case, in case order, the default last.
// RUN: te-opt %s --te-pipeline="target=cpu lower-to-llvm=false" | FileCheck %s --check-prefix=CHAIN
// CHAIN-LABEL: func.func @pick
// CHAIN: %[[C0:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHAIN: cf.cond_br %[[C0]], ^[[NEGB:bb[0-9]+]], ^[[NEXT:bb[0-9]+]]
// CHAIN: ^[[NEXT]]:
// CHAIN: %[[C7:.*]] = arith.cmpi eq, %{{.*}}, %c7_i32 : i32
// CHAIN: cf.cond_br %[[C7]], ^{{bb[0-9]+}}, ^{{bb[0-9]+}}(
// CHAIN-NOT: cf.switch
//
// The same on the GPU target: host branches around the kernels.
// RUN: te-opt %s --te-pipeline="target=sm_90 lower-to-llvm=false" | FileCheck %s --check-prefix=GPU
// GPU-LABEL: func.func @pick
// GPU-NOT: cf.switch
// GPU: gpu.launch

func.func @pick(%a: tensor<?xf32>, %sel: i32) -> tensor<?xf32> {
  cf.switch %sel : i32, [
    default: ^out(%a : tensor<?xf32>),
    0: ^neg,
    7: ^square(%a : tensor<?xf32>)
  ]
^neg:
  %n = arith.negf %a : tensor<?xf32>
  cf.br ^out(%n : tensor<?xf32>)
^square(%x: tensor<?xf32>):
  %s = arith.mulf %x, %x : tensor<?xf32>
  cf.br ^out(%s : tensor<?xf32>)
^out(%r: tensor<?xf32>):
  return %r : tensor<?xf32>
}
