"""Reads an SVG chart kfuse wrote back: it must be well-formed XML, keep every
shape and text inside the picture, and draw no text over another text, a bar,
a whisker, a marker or the native-best line. Prints what it shows, one item
per line, for FileCheck."""
import sys
import xml.etree.ElementTree as ET

CHAR_WIDTH, FONT_SIZE = 7.2, 12.0  # kfuse's monospace font: 0.6 em per character
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == NS + "svg", "not an SVG document"
W, H = float(root.get("width")), float(root.get("height"))


def box_of(e):
    """(x0, y0, x1, y1) of a shape or a text's estimated extent."""
    tag = e.tag[len(NS):]
    f = lambda k: float(e.get(k))
    if tag == "rect":
        return (f("x"), f("y"), f("x") + f("width"), f("y") + f("height"))
    if tag == "line":
        return (min(f("x1"), f("x2")), min(f("y1"), f("y2")),
                max(f("x1"), f("x2")), max(f("y1"), f("y2")))
    width = CHAR_WIDTH * len(e.text or "")
    x = f("x") - {"start": 0, "middle": width / 2, "end": width}[e.get("text-anchor")]
    return (x, f("y") - 0.8 * FONT_SIZE, x + width, f("y") + 0.2 * FONT_SIZE)


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


shapes = [e for e in root if e.get("class")]
texts = [e for e in shapes if e.tag == NS + "text"]
solid = [e for e in shapes if e.get("class") in ("bar", "whisker", "marker", "native-best")]
for e in shapes:
    x0, y0, x1, y1 = box_of(e)
    assert 0 <= x0 and x1 <= W and 0 <= y0 and y1 <= H, "outside the picture: %s" % ET.tostring(e)
for i, t in enumerate(texts):
    for other in texts[i + 1:] + solid:
        assert not overlap(box_of(t), box_of(other)), "'%s' is drawn over %s" % (
            t.text, ET.tostring(other).decode().strip())
count = lambda c: sum(1 for e in shapes if e.get("class") == c)
print("svg %dx%d ok: %d bars, %d whiskers, %d markers, %d native-best lines" % (
    W, H, count("bar"), count("whisker") // 3, count("marker"), count("native-best")))
for t in texts:
    print("%s: %s" % (t.get("class"), t.text))
