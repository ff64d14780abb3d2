"""Text that touches or crosses a border, measured in the browser that draws the picture.

Graphviz places text by its own measure of the fonts (Pango, hinted); a browser draws the SVG
unhinted and can draw a line wider than the box Graphviz gave it (issue 25: "ALIVE" over its
row's border, a module box's title over its folder tab). ``CROSSINGS_JS`` takes one Graphviz
SVG element that is in the page (so the browser has laid its text out in the page's fonts) and
returns every text whose box some drawn border passes through or touches: the borders of
nodes, table cells and clusters (module boxes), each sampled every half point along its
outline, with half its stroke's width. A text's box is its advance across and its ink up and
down (a CJK font's line box is far taller than its glyphs). Edges are not borders. An SVG
shown as an ``<img>`` (a notebook fresh from a clone) is measured from its source, put into
the page at the size the ``<img>`` is shown: text is laid out per size, and a picture drawn
far smaller than it is shown measured wider.
"""

CROSSINGS_JS = r"""
(picture) => {
  // an <img> of an SVG (a notebook fresh from a clone): its source, put into the page at the
  // size the <img> is shown (text is laid out per size), hidden, measured and removed
  let host = null, svg = picture;
  if (picture.tagName.toLowerCase() === 'img') {
    const [head, data] = (picture.getAttribute('src') || '').split(',', 2);
    if (!head.startsWith('data:image/svg+xml')) return [];
    const source = head.endsWith(';base64')
      ? new TextDecoder().decode(Uint8Array.from(atob(data), c => c.charCodeAt(0)))
      : decodeURIComponent(data);
    host = document.createElement('div');
    host.style.cssText = 'position:absolute; left:-20000px; top:0; visibility:hidden';
    host.innerHTML = source;
    document.body.appendChild(host);
    svg = host.querySelector('svg');
    if (!svg) { host.remove(); return []; }
    svg.style.width = picture.getBoundingClientRect().width + 'px';
    svg.style.height = 'auto';
  }
  try {
    return crossingsOf(svg);
  } finally {
    if (host) host.remove();
  }
  function crossingsOf(svg) {
  const graph = svg.querySelector('g.graph');
  if (!graph) return [];
  // each text's box: its advance across, its ink (the drawn glyphs) up and down from its
  // baseline; a CJK font's line box is ~1.45 em tall, far above its glyphs
  const g = document.createElement('canvas').getContext('2d');
  const texts = [];
  for (const t of graph.querySelectorAll('text')) {
    if (!t.textContent.trim() || t.closest('g.edge')) continue;
    const b = t.getBBox(), cs = getComputedStyle(t);
    if (!(b.width > 0)) continue;
    g.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const m = g.measureText(t.textContent), y = parseFloat(t.getAttribute('y'));
    const ink = isNaN(y) ? {y: b.y, height: b.height} :
      {y: y - m.actualBoundingBoxAscent, height: m.actualBoundingBoxAscent + m.actualBoundingBoxDescent};
    texts.push({b: {x: b.x, width: b.width, ...ink}, text: t.textContent.trim()});
  }
  const stroked = el => {
    const s = (el.getAttribute('stroke') || '').toLowerCase();
    return s && s !== 'none' && s !== 'transparent';
  };
  const found = new Map();
  let half = 0.5;  // half the border's stroke: the painted line reaches that far from its path
  const hit = (x, y) => {
    for (const t of texts) {
      const b = t.b;
      if (x >= b.x - half && x <= b.x + b.width + half && y >= b.y - half &&
          y <= b.y + b.height + half) {
        if (!found.has(t)) found.set(t, [x, y]);
      }
    }
  };
  for (const el of graph.querySelectorAll('polygon, polyline, path, ellipse')) {
    if (el.closest('g.edge') || !stroked(el)) continue;
    if (el.parentElement === graph && el.tagName === 'polygon' &&
        el.getAttribute('fill') === 'white') continue;  // the page's background
    const tag = el.tagName.toLowerCase();
    half = parseFloat(el.getAttribute('stroke-width') || '1') / 2;
    if (tag === 'polygon' || tag === 'polyline') {
      const p = [...el.points].map(q => [q.x, q.y]);
      if (tag === 'polygon' && p.length) p.push(p[0]);
      for (let k = 0; k + 1 < p.length; k++) {
        const [x0, y0] = p[k], [x1, y1] = p[k + 1];
        const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) * 2));
        for (let s = 0; s <= n; s++) hit(x0 + (x1 - x0) * s / n, y0 + (y1 - y0) * s / n);
      }
    } else {
      const length = el.getTotalLength();
      for (let s = 0; s <= length; s += 0.5) {
        const q = el.getPointAtLength(s);
        hit(q.x, q.y);
      }
    }
  }
  return [...found.entries()].map(([t, [x, y]]) => ({text: t.text, x, y,
    box: [t.b.x, t.b.y, t.b.x + t.b.width, t.b.y + t.b.height].map(v => Math.round(v * 10) / 10)}));
  }
}
"""

def svg_crossings(page, element):
    """The texts a border touches or crosses in one picture: an ``<svg>`` element handle in
    the page, or an ``<img>`` of an SVG."""
    return page.evaluate(f"({CROSSINGS_JS})", element)


def describe(found, limit=3):
    """'"ALIVE", "fc · Linear" (+2 more)' for a report line."""
    names = ", ".join(f'"{c["text"][:40]}"' for c in found[:limit])
    return names + (f" (+{len(found) - limit} more)" if len(found) > limit else "")
