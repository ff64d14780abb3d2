# The shell of JupyterLab's terminal under `make lab` (the Makefile's TERMINAL): the start-up
# files a login shell reads, then the project's venv activated, so that `pip` and `python` here
# are the ones the lessons' kernels run (a login shell alone puts /etc/profile's PATH first).
if [ -r /etc/profile ]; then . /etc/profile; fi
profile=
for rc in "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.profile"; do
  if [ -r "$rc" ]; then profile=$rc; break; fi
done
if [ -n "$profile" ]; then . "$profile"; elif [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
unset profile rc
if [ -n "$AUTOGRAD_LESSON_VENV" ] && [ -r "$AUTOGRAD_LESSON_VENV/bin/activate" ]; then
  . "$AUTOGRAD_LESSON_VENV/bin/activate"
fi
