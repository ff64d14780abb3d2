"""``detect_anomaly`` and ``set_detect_anomaly``, as in ``torch.autograd.anomaly_mode``."""
import warnings

from ..extensions import anomaly_mode as _mode

__all__ = ["detect_anomaly", "set_detect_anomaly"]


def _set(mode, check_nan):
    for position, (name, value) in enumerate((("enabled", mode), ("check_nan", check_nan)), 1):
        if not isinstance(value, bool):  # PyTorch's argument parser takes a bool only
            from .._dtype import typename
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {position}) "
                            f"must be bool, not {typename(value)}")
    _mode.set_anomaly_enabled(mode, check_nan)


class detect_anomaly:
    """Context manager: anomaly detection on inside the block (warns that it is slow).

    Like PyTorch 2.13's, it is not a decorator: ``@detect_anomaly()`` raises TypeError.
    """

    def __init__(self, check_nan=True):
        self.prev = _mode.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _mode.is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        _set(True, self.check_nan)

    def __exit__(self, *args):
        _mode.set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off: as a call, or as a context manager that restores."""

    def __init__(self, mode, check_nan=True):
        self.prev = _mode.is_anomaly_enabled()
        self.prev_check_nan = _mode.is_anomaly_check_nan_enabled()
        _set(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        _mode.set_anomaly_enabled(self.prev, self.prev_check_nan)
