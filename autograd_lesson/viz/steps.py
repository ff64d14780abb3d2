"""Step through a recorded backward, one executed node per frame.

In JupyterLab an ipywidgets slider picks the frame and the picture follows. A static strip of
small frames is the fallback (and what a notebook shows before it is run); the text of the
frames is what nbval compares.
"""
import base64
import io

from .dot import snapshot_dot
from .render import render


def _strip_png(frames, columns=4, max_frames=8):
    """Frames rendered side by side into one PNG (matplotlib brings Pillow)."""
    from PIL import Image
    chosen = frames if len(frames) <= max_frames else (frames[: max_frames // 2]
                                                       + frames[-max_frames // 2:])
    images = [Image.open(io.BytesIO(render(snapshot_dot(f.snapshot, f"step {f.step}: "
                                                        f"#{f.node_id} {f.node_name}",
                                                        legend=False), "png")))
              for f in chosen]
    width = max(i.width for i in images)
    height = max(i.height for i in images)
    rows = (len(images) + columns - 1) // columns
    sheet = Image.new("RGB", (width * min(columns, len(images)), height * rows), "white")
    for k, image in enumerate(images):
        sheet.paste(image, ((k % columns) * width, (k // columns) * height))
    scale = min(1.0, 1600 / sheet.width)
    if scale < 1:
        sheet = sheet.resize((int(sheet.width * scale), int(sheet.height * scale)))
    out = io.BytesIO()
    sheet.save(out, format="PNG")
    return out.getvalue()


class StepThrough:
    """Frames of one backward: ``.text`` lists them; display shows a slider (or a strip)."""

    def __init__(self, frames, title=""):
        if not frames:
            raise ValueError("no frames were recorded: did the call run a backward?")
        self.frames = frames
        self.title = title
        self._svgs = {}

    @property
    def text(self):
        lines = [self.title] if self.title else []
        lines += [f.text for f in self.frames]
        return "\n".join(lines)

    def __repr__(self):
        return self.text

    def frame_svg(self, index):
        if index not in self._svgs:
            f = self.frames[index]
            title = f"step {f.step} of {len(self.frames)}: #{f.node_id} {f.node_name}"
            self._svgs[index] = render(snapshot_dot(f.snapshot, title), "svg").decode("utf-8")
        return self._svgs[index]

    def widget(self):
        """A slider over the frames and the picture of the chosen one."""
        import ipywidgets as widgets
        picture = widgets.HTML(self.frame_svg(0))
        caption = widgets.Label(self.frames[0].text)
        slider = widgets.IntSlider(value=1, min=1, max=len(self.frames), step=1,
                                   description="step", continuous_update=False)

        def show(change):
            picture.value = self.frame_svg(change["new"] - 1)
            caption.value = self.frames[change["new"] - 1].text

        slider.observe(show, names="value")
        count = len(self.frames)

        class StepSlider(widgets.VBox):
            def __repr__(self):  # the text a notebook stores: short and stable, not the SVG
                return f"step-through slider over {count} steps"

        return StepSlider([slider, caption, picture])

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.text}
        try:
            bundle["image/png"] = base64.b64encode(_strip_png(self.frames)).decode("ascii")
        except Exception as error:  # no dot: the text still tells the story
            bundle["text/plain"] += f"\n(strip not rendered: {error})"
        return bundle
