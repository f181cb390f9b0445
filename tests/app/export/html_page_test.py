#!/usr/bin/env python3
"""collviz export --format html in a real browser (Debian's chromium, headless,
offline): every trace radio and direction, every round, play; after each
action the figure on the page is compared with the SVG export of that state
(--trace K, --trace-by, --step K, --format svg) drawn by the same browser.
No console error, no request but the file itself, Tab reaches every control,
JavaScript off shows the static figure, hostile names stay text, the same
inputs give the same bytes, and the pages' sizes are printed and checked.

html_page_test.py COLLVIZ LANG_CHECKER MSCCL_FIXTURE
Exits 77 (ctest's skip) with the reason when chromium, chromedriver or
selenium is missing.
"""
import html as htmlmod
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

SKIP = 77
COLLVIZ, CHECKER, FIXTURE = (os.path.abspath(a) for a in sys.argv[1:4])
MAX_OP_PAGE, MAX_ARTICLE = 150 * 1024, 1200 * 1024
failures = []


def fail(msg):
    print("FAIL:", msg, flush=True)
    failures.append(msg)


for tool in ("chromium", "chromedriver"):
    if not shutil.which(tool):
        print(f"SKIP: {tool} is not installed (apt-get install chromium chromium-driver python3-selenium)")
        sys.exit(SKIP)
try:
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.chrome.service import Service
except ImportError:
    print("SKIP: python3-selenium is not installed (apt-get install python3-selenium)")
    sys.exit(SKIP)


def png_pixels(data):
    """(width, height, rows of RGB bytes) of an 8-bit non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for i, v in enumerate(line) if i % 4 != 3))
        prev = line
    return w, h, rows


def differing(png_a, png_b):
    """Share of pixels that differ by more than 48 in a channel (1.0: sizes differ)."""
    wa, ha, ra = png_pixels(png_a)
    wb, hb, rb = png_pixels(png_b)
    if (wa, ha) != (wb, hb):
        return 1.0
    bad = 0
    for la, lb in zip(ra, rb):
        if la == lb:
            continue
        bad += sum(1 for i in range(0, len(la), 3)
                   if max(abs(la[i] - lb[i]), abs(la[i + 1] - lb[i + 1]), abs(la[i + 2] - lb[i + 2])) > 48)
    return bad / (wa * ha)


def run(*args, env=None):
    r = subprocess.run([COLLVIZ, *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        fail(f"collviz {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}")
    return r


tmp = tempfile.mkdtemp(prefix="collviz-html-")
os.chdir(tmp)
env = dict(os.environ, LANG="C.UTF-8")


def browser(js=True, dark=False):
    o = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
              "--force-device-scale-factor=1", "--hide-scrollbars", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--proxy-server=127.0.0.1:9",
              "--disable-features=WebContentsForceDark"):
        o.add_argument(a)
    if not js:
        o.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    o.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": "dark" if dark else "light"},
        {"name": "prefers-reduced-motion", "value": "no-preference"}]})
    return d


def requests(d):
    urls = []
    for e in d.get_log("performance"):
        m = json.loads(e["message"])["message"]
        if m["method"] == "Network.requestWillBeSent":
            urls.append(m["params"]["request"]["url"])
    return urls


def console_errors(d):
    return [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


refs = {}


ref_browsers = {}


def reference(d, args, name):
    """The SVG export of a state, drawn by the same browser (another window
    of it, so that the page keeps its state and its request log)."""
    if name not in refs:
        run(*args, "--format", "svg", "-o", name, env=env)
        dark = "--theme" in args and args[args.index("--theme") + 1] == "dark"
        if dark not in ref_browsers:
            ref_browsers[dark] = browser(dark=dark)
        r = ref_browsers[dark]
        r.get("file://" + os.path.join(tmp, name))
        refs[name] = r.find_element(By.TAG_NAME, "svg").screenshot_as_png
    return refs[name]


def visible_svg(fig):
    for s in fig.find_elements(By.CSS_SELECTOR, ".cv-view svg"):
        if s.is_displayed():
            return s
    raise AssertionError("no figure shown")


def wait_state(d, fig_id, k):
    for _ in range(100):
        if d.find_element(By.ID, fig_id).get_attribute("data-state") == str(k):
            return True
        time.sleep(0.05)
    fail(f"{fig_id}: state {k} never shown")
    return False


def compare(d, page, fig_id, args, name, what):
    """Screenshot the figure on `page`, then the reference; compare."""
    shot = visible_svg(d.find_element(By.ID, fig_id)).screenshot_as_png
    ref = reference(d, args, name)
    share = differing(shot, ref)
    if share > 0.002:
        fail(f"{page} {what}: {share:.2%} of pixels differ from {name}")
        with open(os.path.join(tmp, "page_" + name + ".png"), "wb") as f:
            f.write(shot)
        with open(os.path.join(tmp, "ref_" + name + ".png"), "wb") as f:
            f.write(ref)


def check_page_common(d, page):
    urls = requests(d)
    own = "file://" + os.path.join(tmp, page)
    others = [u for u in urls if u != own]
    if others:
        fail(f"{page}: requests beyond the file itself: {others[:5]}")
    errs = console_errors(d)
    if errs:
        fail(f"{page}: console errors: {errs[:3]}")


def control_key(e):
    # Tab stops once in a group of radio buttons (the arrows move within it).
    if e.get_attribute("type") == "radio":
        return "radios " + e.get_attribute("name")
    return e.get_attribute("id") or e.get_attribute("class")


def tab_reaches_controls(d, page):
    want = {control_key(e) for e in d.find_elements(By.CSS_SELECTOR, "input, button, .cv-scroll") if e.is_displayed()}
    seen = set()
    d.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    for _ in range(600):
        ActionChains(d).send_keys(Keys.TAB).perform()
        seen.add(control_key(d.switch_to.active_element))
        if want <= seen:
            break
    else:
        fail(f"{page}: Tab never reached {sorted(want - seen)[:5]}")
        return
    # The arrows move within a group of radio buttons, as a keyboard user expects.
    radios = d.find_elements(By.CSS_SELECTOR, "#f1 input[name=f1-t]")
    if radios:
        radios[0].click()
        ActionChains(d).send_keys(Keys.ARROW_RIGHT).perform()
        if not radios[1].is_selected():
            fail(f"{page}: the right arrow did not move the trace to R0")
        radios[0].click()


# 1. The pages.
run("export", "--op", "all_to_all", "--format", "html", "-o", "a2a.html", env=env)
run("export", "--op", "all_to_all", "--format", "html", "-o", "a2a_again.html", env=env)
run("export", "--op", "all_reduce", "--algo", "ring", "--format", "html", "-o", "ring.html", env=env)
# The caption names the figure, not the round shown first (the slider does).
with open("ring.html", encoding="utf-8") as f:
    caps = re.findall(r"<figcaption>([^<]*)", f.read())
if not caps or any(re.search(r"round \d+/\d+", c) for c in caps) or "6 rounds" not in caps[0]:
    fail(f"ring.html: its caption names one round, or not its rounds: {caps}")
run("export", "--op", "all_reduce_decomposed", "--format", "html", "-o", "dec.html", env=env)
run("export", "--all", "--format", "html", "-o", "article.html", env=env)
run("export", "--all", "--format", "html", "--lang", "both", "-o", "article_both.html", env=env)
hostile_name = "</script><img src=x onerror=alert(1)>]]>"
with open(FIXTURE, encoding="utf-8") as f:
    xml = re.sub(r'name="[^"]*"', 'name="' + htmlmod.escape(hostile_name) + '"', f.read(), count=1)
with open("hostile.xml", "w", encoding="utf-8") as f:
    f.write(xml)
run("export", "--algo-file", "hostile.xml", "--format", "html", "-o", "hostile.html", env=env)

with open("hostile.toml", "w", encoding="utf-8") as f:
    f.write('title.en = "Deck ' + hostile_name.replace('"', "'") + '"\n'
            '[[step]]\nop = "all_to_all"\nranks = 4\nelems = 4\ncaption.en = "one ' + hostile_name + '"\n'
            '[[step]]\nop = "all_reduce"\ncaption.en = "two &lt;b&gt;"\n'
            '[[step]]\nop = "broadcast"\ncaption.en = "three"\n')
run("lecture", "hostile.toml", "--export", "deck", "--format", "html", env=env)

# The article's intro (issue 57): a command as <code>, no literal backticks;
# a page that follows the reader's light or dark names no theme.
with open("article.html", encoding="utf-8") as f:
    intro = " ".join(re.findall(r"<p>(.*?)</p>", f.read()))
if "`" in intro or "<code>collviz export --all --format html</code>" not in intro:
    fail(f"article.html's intro shows its command with backticks, or not as code: {intro[:300]}")
if "theme light" in intro or "theme dark" in intro:
    fail(f"article.html follows light or dark, its intro names one theme: {intro[:300]}")
# ring.html opens at round 0 (the question first), its slider's label filled in.
with open("ring.html", encoding="utf-8") as f:
    ring = f.read()
if not re.search(r'id="f1" data-ranks="\d+" data-state="0"', ring) or not re.search(r'aria-label="round 0/\d+"', ring):
    fail("ring.html does not open at round 0 with its slider labelled round 0/N")

if open("a2a.html", "rb").read() != open("a2a_again.html", "rb").read():
    fail("a2a.html: two exports of the same inputs differ")
for page, limit in (("a2a.html", MAX_OP_PAGE), ("dec.html", None), ("ring.html", None),
                    ("article.html", MAX_ARTICLE), ("article_both.html", MAX_ARTICLE), ("hostile.html", None)):
    size = os.path.getsize(page)
    print(f"size {page}: {size} bytes ({size / 1024:.0f} KB)" + (f", limit {limit // 1024} KB" if limit else ""))
    if limit and size > limit:
        fail(f"{page} is {size} bytes, over {limit}")

# 2. Hostile names are text.
for page in ("hostile.html", "deck/index.html"):
    src = open(page, encoding="utf-8").read()
    if src.count("<script") != 1 or "<img" in src or "]]>" in src or "<b>" in src:
        fail(f"{page}: a name or caption became markup")

d = browser()
try:
    # 3. All-to-all: every radio and direction against the SVG export.
    d.get("file://" + os.path.join(tmp, "a2a.html"))
    check_page_common(d, "a2a.html")
    compare(d, "a2a.html", "f1", ["export", "--op", "all_to_all"], "a2a_all.svg", "untraced")
    n = 4
    for direction, by, suffix in (("reaches", "destination", "r"), ("goes", "source", "from_r")):
        d.find_element(By.ID, "f1-d-" + direction).click()
        for r in range(n):
            d.find_element(By.ID, f"f1-t-{r}").click()
            k = 1 + r + (n if direction == "goes" else 0)
            if wait_state(d, "f1", k):
                compare(d, "a2a.html", "f1", ["export", "--op", "all_to_all", "--trace", str(r), "--trace-by", by],
                        f"a2a_{suffix}{r}.svg", f"trace {direction} R{r}")
    d.find_element(By.ID, "f1-t-all").click()
    wait_state(d, "f1", 0)
    compare(d, "a2a.html", "f1", ["export", "--op", "all_to_all"], "a2a_all.svg", "back to all")
    # Tooltip: hover a tile shows its label, contributors and values.
    hit = d.find_elements(By.CSS_SELECTOR, "#f1 .cv-hit")
    d.execute_script("arguments[0].focus()", hit[-1])
    tip = d.find_element(By.CSS_SELECTOR, "#f1 .cv-tip").text
    if "contributors" not in tip or "values" not in tip:
        fail(f"a2a.html: a focused tile says {tip!r}")
    tab_reaches_controls(d, "a2a.html")
    d.find_element(By.ID, "f1-d-reaches").click()
    d.find_element(By.ID, "f1-t-2").click()
    wait_state(d, "f1", 3)
    os.makedirs("/tmp/html-shots", exist_ok=True)
    d.find_element(By.ID, "f1").screenshot("/tmp/html-shots/a2a_traced_r2.png")
    check_page_common(d, "a2a.html")

    # 4. Ring all-reduce: next, previous, slider, play.
    d.get("file://" + os.path.join(tmp, "ring.html"))
    rounds = len(d.find_elements(By.CSS_SELECTOR, "#f1 .cv-round")) - 1
    d.find_element(By.CSS_SELECTOR, "#f1 input[type=range]")
    d.execute_script("var r=document.querySelector('#f1 input[type=range]');r.value=0;r.dispatchEvent(new Event('input'))")
    for k in range(rounds + 1):
        wait_state(d, "f1", k)
        compare(d, "ring.html", "f1", ["export", "--op", "all_reduce", "--algo", "ring", "--step", str(k)],
                f"ring_{k}.svg", f"round {k}")
        if k == 3:
            d.find_element(By.ID, "f1").screenshot("/tmp/html-shots/ring_round3.png")
        if k < rounds:
            d.find_element(By.CSS_SELECTOR, "#f1 .cv-next").click()
    d.find_element(By.CSS_SELECTOR, "#f1 .cv-prev").click()
    wait_state(d, "f1", rounds - 1)
    d.find_element(By.CSS_SELECTOR, "#f1 .cv-next").click()
    wait_state(d, "f1", rounds)
    d.find_element(By.CSS_SELECTOR, "#f1 .cv-play").click()
    wait_state(d, "f1", 0)
    time.sleep(1.5)
    if d.find_element(By.ID, "f1").get_attribute("data-state") == "0":
        fail("ring.html: play did not advance")
    check_page_common(d, "ring.html")
    tab_reaches_controls(d, "ring.html")

    # 5. The decomposition: three states side by side in a scroll frame.
    d.get("file://" + os.path.join(tmp, "dec.html"))
    svgs = d.find_elements(By.CSS_SELECTOR, "#f1 .cv-view svg")
    if len(svgs) != 3:
        fail(f"dec.html: {len(svgs)} states, not 3")
    for k, s in enumerate(svgs):
        d.execute_script("arguments[0].scrollIntoView({inline:'start'})", s)
        shot = s.screenshot_as_png
        ref = reference(d, ["export", "--op", "all_reduce_decomposed", "--step", str(k)], f"dec_{k}.svg")
        if differing(shot, ref) > 0.002:
            fail(f"dec.html state {k} differs from its SVG export")
    check_page_common(d, "dec.html")

    # The lecture deck: the title slide and one slide per step, keys and counter.
    d.get("file://" + os.path.join(tmp, "deck", "index.html"))
    slides = d.find_elements(By.CSS_SELECTOR, ".cv-slide")
    if len(slides) != 4:
        fail(f"deck: {len(slides)} slides, not 4 (title + 3 steps)")

    def slide():
        return d.find_element(By.TAG_NAME, "body").get_attribute("data-slide")

    for key, want_slide in ((Keys.ARROW_RIGHT, "1"), (Keys.ARROW_RIGHT, "2"), (Keys.ARROW_LEFT, "1"),
                            (Keys.END, "3"), (Keys.HOME, "0")):
        ActionChains(d).send_keys(key).perform()
        if slide() != want_slide:
            fail(f"deck: after {key!r} slide {slide()}, not {want_slide}")
    ActionChains(d).send_keys(Keys.ARROW_RIGHT).perform()
    shown = [s for s in slides if s.is_displayed()]
    if len(shown) != 1 or hostile_name not in shown[0].find_element(By.TAG_NAME, "figcaption").text:
        fail("deck: slide 1 does not show its caption as text")
    if "1/3" not in d.find_element(By.CSS_SELECTOR, ".cv-count").text:
        fail("deck: the counter does not say 1/3")
    d.find_element(By.CSS_SELECTOR, ".cv-deck .cv-next").click()
    if slide() != "2":
        fail("deck: the next button did not move")
    d.save_screenshot("/tmp/html-shots/deck_step2.png")
    check_page_common(d, "deck/index.html")

    # 6. The article: 9 figures in order, headings as the article's.
    d.get("file://" + os.path.join(tmp, "article.html"))
    heads = [h.text for h in d.find_elements(By.TAG_NAME, "h2")]
    want = ["01 Broadcast", "02 Scatter", "03 Gather", "04 Reduce", "05 All-gather", "06 Reduce-scatter",
            "07 All-reduce", "08 All-to-all", "All-reduce"]
    if len(heads) != 9 or any(not h.startswith(w) for h, w in zip(heads, want)) or "All-gather" not in heads[8]:
        fail(f"article.html headings: {heads}")
    if "exchange by column" not in heads[7:8][0] if len(heads) > 7 else True:
        fail("article.html: all-to-all's phrase missing")
    check_page_common(d, "article.html")
    d.set_window_size(1400, 2400)
    d.save_screenshot("/tmp/html-shots/article_en_light.png")
finally:
    d.quit()

d = browser(dark=True)
try:
    d.get("file://" + os.path.join(tmp, "a2a.html"))
    compare(d, "a2a.html (dark)", "f1", ["export", "--op", "all_to_all", "--theme", "dark"], "a2a_dark.svg",
            "dark scheme")
    d.set_window_size(1400, 2400)
    d.get("file://" + os.path.join(tmp, "article.html"))
    d.save_screenshot("/tmp/html-shots/article_en_dark.png")
    d.get("file://" + os.path.join(tmp, "article_both.html"))
    d.find_element(By.ID, "cv-lang-1").click()
    d.save_screenshot("/tmp/html-shots/article_zh_dark.png")
finally:
    d.quit()

d = browser()
try:
    d.set_window_size(1400, 2400)
    d.get("file://" + os.path.join(tmp, "article_both.html"))
    d.find_element(By.ID, "cv-lang-1").click()
    d.save_screenshot("/tmp/html-shots/article_zh_light.png")
    text = d.find_element(By.CSS_SELECTOR, ".cv-lang-1").text  # the switch names English in English
    zh_heads = [h.text for h in d.find_elements(By.TAG_NAME, "h2") if h.is_displayed()]
    if len(zh_heads) != 9 or "按列交换" not in zh_heads[7]:
        fail(f"article_both.html in 中文: headings {zh_heads}")
    svg_text = "".join(t.get_attribute("textContent") + "\n"
                       for t in d.find_elements(By.CSS_SELECTOR, ".cv-lang-1 svg text"))
    text += "\n" + svg_text
    with open("zh_text.txt", "w", encoding="utf-8") as f:
        f.write(text)
    r = subprocess.run([sys.executable, CHECKER, "zh_text.txt"], capture_output=True, text=True)
    if r.returncode != 0:
        fail("article_both.html: English left on the 中文 page:\n" + r.stdout[:2000])
    # The switch back: every English heading again.
    d.find_element(By.ID, "cv-lang-0").click()
    en_heads = [h.text for h in d.find_elements(By.TAG_NAME, "h2") if h.is_displayed()]
    if len(en_heads) != 9 or not en_heads[0].startswith("01 Broadcast"):
        fail(f"article_both.html switched back: headings {en_heads}")
    check_page_common(d, "article_both.html")
finally:
    d.quit()

# 7. JavaScript off: the static figure, every round one under the other.
d = browser(js=False)
try:
    d.get("file://" + os.path.join(tmp, "a2a.html"))
    compare(d, "a2a.html (no JS)", "f1", ["export", "--op", "all_to_all"], "a2a_all.svg", "no JavaScript")
    if any(c.is_displayed() for c in d.find_elements(By.CSS_SELECTOR, ".cv-ctl")):
        fail("a2a.html without JavaScript shows controls that do nothing")
    d.get("file://" + os.path.join(tmp, "ring.html"))
    shown = [s for s in d.find_elements(By.CSS_SELECTOR, "#f1 .cv-round") if s.is_displayed()]
    if len(shown) != rounds + 1:
        fail(f"ring.html without JavaScript shows {len(shown)} rounds, not {rounds + 1}")
finally:
    d.quit()

# 8. An NCCL log's figure as a page (export --nccl-log -o x.html): the same
# drawing as its SVG export, light and dark by the reader's scheme, no request.
P = "a:1:1 [0] NCCL INFO "
with open("nccl.log", "w") as f:
    f.write("".join(P + l + "\n" for l in (
        "NCCL version 2.26.2+cuda12.6", "comm 0x1 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0",
        "Channel 00/02 : 0 1 3 2", "Channel 01/02 : 0 2 3 1", "Trees [0] 1/2/-1->0->-1 [1] 2/-1/-1->0->-1",
        "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", "Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0",
        "AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..1}")))
log = os.path.join(tmp, "nccl.log")
run("export", "--nccl-log", log, "--channel", "0", "-o", "nccl.html", env=env)
for dark in (False, True):
    d = browser(dark=dark)
    try:
        d.get("file://" + os.path.join(tmp, "nccl.html"))
        args = ["export", "--nccl-log", log, "--channel", "0"] + (["--theme", "dark"] if dark else [])
        compare(d, "nccl.html" + (" (dark)" if dark else ""), "f1", args, "nccl_dark.svg" if dark else "nccl.svg",
                "the NCCL log's figure")
        svg = d.find_element(By.CSS_SELECTOR, "#f1 svg")
        if svg.get_attribute("role") != "img" or not d.find_elements(By.CSS_SELECTOR, "#f1 figcaption"):
            fail("nccl.html: the figure lacks role=img or its figcaption")
        check_page_common(d, "nccl.html")
    finally:
        d.quit()

for r in ref_browsers.values():
    r.quit()
print(f"screenshots in /tmp/html-shots; work files in {tmp}")
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
shutil.rmtree(tmp)
print("ok")
