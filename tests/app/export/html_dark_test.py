#!/usr/bin/env python3
"""A figure exported as HTML that follows the reader's light or dark scheme
stays dark after a click (issue 57): every trace state swapped in uses the
page's colour classes, never the light drawing's inline fills (a cream
panel on a black page). In headless chromium with the dark scheme set
before the page loads: the first state, then each trace choice and
direction, is checked for inline colours and for a dark background.

html_dark_test.py COLLVIZ
Exits 77 (ctest's skip) with the reason when chromium, chromedriver or
selenium is missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
COLLVIZ = os.path.abspath(sys.argv[1])
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
    from selenium.webdriver.chrome.service import Service
except ImportError:
    print("SKIP: python3-selenium is not installed (apt-get install python3-selenium)")
    sys.exit(SKIP)

tmp = tempfile.mkdtemp(prefix="collviz-html-dark-")
os.chdir(tmp)
env = dict(os.environ, LANG="C.UTF-8")
r = subprocess.run([COLLVIZ, "export", "--op", "all_to_all", "--ranks", "4", "--format", "html", "-o", "a2a.html"],
                   capture_output=True, text=True, env=env)
if r.returncode != 0:
    print(f"FAIL: collviz export exited {r.returncode}: {r.stderr.strip()}")
    sys.exit(1)

o = webdriver.ChromeOptions()
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--force-device-scale-factor=1",
          "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
          "--proxy-server=127.0.0.1:9", "--disable-features=WebContentsForceDark"):
    o.add_argument(a)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
# The dark scheme before the page loads.
d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})

# The shown state's SVG: its inline colours, and its largest rectangle's
# fill as the page paints it (the figure's background).
PROBE = """
const fig = document.getElementById(arguments[0]);
const svg = [...fig.querySelectorAll('.cv-view svg')].find(s => s.getBoundingClientRect().width > 0);
if (!svg) return null;
let big = null, area = -1;
for (const r of svg.querySelectorAll('rect')) {
  if (r.classList.contains('cv-hit')) continue;
  const b = r.getBoundingClientRect();
  if (b.width * b.height > area) { area = b.width * b.height; big = r; }
}
const inline = (svg.outerHTML.match(/(fill|stroke)="#[0-9a-fA-F]{6}"/g) || []).length;
return {inline: inline, fill: big ? getComputedStyle(big).fill : '', state: fig.getAttribute('data-state')};
"""


def luma(css):
    m = re.match(r"rgba?\((\d+), (\d+), (\d+)", css or "")
    if not m:
        return None
    r, g, b = (int(x) / 255 for x in m.groups())
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def check(what):
    p = None
    for _ in range(100):  # the state is inflated and swapped in asynchronously
        p = d.execute_script(PROBE, "f1")
        if p and p["fill"]:
            break
        time.sleep(0.05)
    if not p:
        fail(f"{what}: no figure shown")
        return
    if p["inline"]:
        fail(f"{what}: {p['inline']} inline colours in the shown state (the light drawing, not the page's classes)")
    y = luma(p["fill"])
    if y is None or y > 0.3:
        fail(f"{what}: the figure's background is {p['fill']} on a dark page")
    print(f"{what}: state {p['state']}, background {p['fill']}, {p['inline']} inline colours", flush=True)


def wait_state(k):
    for _ in range(100):
        if d.find_element(By.ID, "f1").get_attribute("data-state") == str(k):
            return True
        time.sleep(0.05)
    fail(f"state {k} never shown")
    return False


try:
    d.get("file://" + os.path.join(tmp, "a2a.html"))
    check("first state")
    # Trace R2, then R0 by direction: states 1 + rank, and 1 + N + rank.
    d.find_element(By.CSS_SELECTOR, "label[for='f1-t-2']").click()
    if wait_state(3):
        check("after a click on R2")
    d.find_element(By.CSS_SELECTOR, "label[for='f1-t-0']").click()
    if wait_state(1):
        check("after a click on R0")
    d.find_element(By.CSS_SELECTOR, "label[for='f1-d-goes']").click()
    if wait_state(5):  # 1 + N + rank: where R0's data goes
        check("after the direction")
    d.find_element(By.CSS_SELECTOR, "label[for='f1-t-all']").click()
    if wait_state(0):
        check("back to All")
finally:
    d.quit()
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok: every trace state of the dark page uses the page's classes")
