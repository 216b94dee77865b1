"""The importer's errors (subclasses of te.Error)."""

from ..errors import InvalidArgumentError, UnsupportedError


class UnsupportedOpError(UnsupportedError):
    """A PyTorch operation the importer cannot map to te: ``op`` is its
    name, ``module`` the qualified path of the module that produced it
    ('' for the top level), ``node`` the FX node's name."""

    def __init__(self, op, reason="", module=None, node=None):
        where = []
        if module is not None:
            where.append(f"in module '{module}'" if module else
                         "in the top-level module")
        if node:
            where.append(f"(node {node})")
        text = f"te.torch: unsupported op {op}"
        if where:
            text += " " + " ".join(where)
        if reason:
            text += f": {reason}"
        super().__init__(text, 2)
        self.op, self.module, self.node, self.reason = op, module, node, \
            reason


# The name used while tracing, where the module path is not known yet.
ImportError_ = UnsupportedOpError


class InputError(InvalidArgumentError):
    """Arguments that do not match what the module was imported for."""

    def __init__(self, message):
        super().__init__(message, 1)
