"""Imports a sibling script whose file name is no module name (measure-accelerator.py), for the
measurement scripts that reuse its timing and device handling."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, filename):
    """The script `filename` of this folder, executed as the module `name`."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
