"""``nn``: modules, layers and losses with the graphs PyTorch records for them."""
from . import functional, init, utils
from .layers import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, Dropout, Flatten, Identity,
                     LeakyReLU, Linear, MSELoss, NLLLoss, ReLU, RNNCell, Sequential, Sigmoid, Tanh)
from .module import Buffer, Module, Parameter

__all__ = ["Module", "Parameter", "Buffer", "Linear", "Sequential", "ReLU", "LeakyReLU", "Tanh", "Sigmoid",
           "Dropout", "Flatten", "Identity", "RNNCell", "MSELoss", "BCELoss", "BCEWithLogitsLoss",
           "CrossEntropyLoss", "NLLLoss", "functional", "init", "utils"]
