"""Imports the PyTorch modules of test_torch_cuda.py with te.torch (torch
1.13 CPU here) and writes, per module, OUT/<name>.mlir (the te program) and
OUT/<name>.npz (its parameters, in the program's argument order, and the
example input), for prepare.sh to compile for the GPU.

    PYTHONPATH=build/python python3 export_modules.py OUT_DIR
"""

import json
import os
import sys

import numpy as np
import torch

import te.torch as tt


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(),
                               torch.nn.Linear(256, 64))


MODULES = {
    # name: (constructor, example input shape, recipe)
    "mlp_fp32": (mlp, (32, 64), None),
    "mlp_current": (mlp, (32, 64), tt.Float8CurrentScaling()),
}


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, (make, shape, recipe) in MODULES.items():
        torch.manual_seed(0)
        model = make().eval()
        x = torch.randn(*shape)
        imported = tt.import_module(model, (x,), recipe=recipe)
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(imported.text)
        params = dict(model.named_parameters())
        np.savez(os.path.join(out, name + ".npz"), x=x.numpy(),
                 **{f"p{i}": params[n].detach().numpy()
                    for i, n in enumerate(imported.param_names)})
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({"param_names": imported.param_names}, f)
        print(f"export_modules.py: {name}: {len(imported.param_names)} "
              "parameters")


if __name__ == "__main__":
    main(sys.argv[1])
