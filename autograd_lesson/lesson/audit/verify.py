"""Trying a fix on a copy of the step."""


def try_fix(step, args, kwargs, plan, calls):
    return None, ""
