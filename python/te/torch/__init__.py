"""te from PyTorch: import ``nn.Module``s into te programs.

    import torch, te.torch as tt
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(),
                                torch.nn.Linear(256, 64)).eval()
    x = torch.randn(32, 64)
    fn = tt.compile(model, (x,), recipe=tt.Float8CurrentScaling())
    y = fn(x)                                   # a torch.Tensor

``import_module`` gives the te module's MLIR text; ``compile`` lowers and
JIT-compiles it (target ``cpu``) and returns a callable on torch tensors.
The recipe objects mirror TransformerEngine's. See docs/guide/pytorch.md.
"""

from .errors import InputError, UnsupportedOpError
from .recipe import (DelayedScaling, Float8BlockScaling, Float8CurrentScaling,
                     Format, MMParams, MXFP8BlockScaling, NVFP4BlockScaling,
                     QParams, Recipe, RecipeError, quantizers)
from .importer import ImportedModule, import_module
from .compiled import CompiledModule, compile

__all__ = [
    "CompiledModule", "DelayedScaling", "Float8BlockScaling",
    "Float8CurrentScaling", "Format", "ImportedModule", "InputError",
    "MMParams", "MXFP8BlockScaling", "NVFP4BlockScaling", "QParams",
    "Recipe", "RecipeError", "UnsupportedOpError", "compile",
    "import_module", "quantizers",
]
