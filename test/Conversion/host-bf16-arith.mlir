// Host code does bf16 arithmetic in f32 (te-lower-if-present:
// arith-emulate-unsupported-floats, then arith-expand with bf16): each op is
// extended, computed in f32 and rounded back with integer arithmetic, so the
// LLVM module has no bf16 arithmetic for the backend to promote through the
// __truncsfbf2 libcall, which older C runtimes (Debian 12's libgcc) lack --
// an AOT object of such a program would not link. Math ops on bf16 likewise.
//
// RUN: te-opt %s --te-pipeline="target=cpu" | FileCheck %s
// CHECK-LABEL: llvm.func @sgd
// CHECK-NOT: {{llvm\.(fmul|fsub|fadd|fptrunc|fpext)}}{{.*}}bf16
// CHECK: llvm.fmul %{{.*}} : f32
// CHECK-NOT: {{llvm\.(fmul|fsub|fadd|fptrunc|fpext)}}{{.*}}bf16
// CHECK: llvm.fsub %{{.*}} : f32
// CHECK-NOT: {{llvm\.(fmul|fsub|fadd|fptrunc|fpext)}}{{.*}}bf16
// CHECK-LABEL: llvm.func @tanh_bf16
// CHECK-NOT: {{(tanh|fptrunc|fpext)}}{{.*}}bf16
// CHECK: llvm.return
// RUN: te-opt %s --te-pipeline="target=cpu" | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR
// IR-NOT: fmul bfloat
// IR-NOT: fsub bfloat
// IR-NOT: fptrunc {{.*}} to bfloat
// IR-NOT: __truncsfbf2

#id = affine_map<(d0) -> (d0)>
func.func @sgd(%w: tensor<64xbf16>, %g: tensor<64xbf16>) -> tensor<64xbf16> {
  %lr = arith.constant 1.0e-2 : bf16
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<64xbf16>, tensor<64xbf16>) outs(%w : tensor<64xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %s = arith.mulf %b, %lr : bf16
    %d = arith.subf %a, %s : bf16
    linalg.yield %d : bf16
  } -> tensor<64xbf16>
  return %r : tensor<64xbf16>
}

func.func @tanh_bf16(%x: tensor<64xbf16>) -> tensor<64xbf16> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xbf16>) outs(%x : tensor<64xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %t = math.tanh %a : bf16
    linalg.yield %t : bf16
  } -> tensor<64xbf16>
  return %r : tensor<64xbf16>
}
