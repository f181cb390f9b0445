#include "app/files/html_writer.h"

#include "app/files/svg_writer.h"

#include <zlib.h>

#include <cstdio>
#include <map>
#include <regex>
#include <tuple>

namespace collviz::ui {

std::string htmlEscape(const std::string& s) {
  std::string out;
  for (char c : svgEscape(s)) out += c == '\'' ? std::string("&#39;") : std::string(1, c);
  return out;
}

namespace {

std::string num(float v) { return svgNumber(v); }

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string base64(const std::vector<unsigned char>& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const unsigned v = unsigned(in[i]) << 16 | (i + 1 < in.size() ? unsigned(in[i + 1]) << 8 : 0u) |
                       (i + 2 < in.size() ? unsigned(in[i + 2]) : 0u);
    out += k[v >> 18 & 63];
    out += k[v >> 12 & 63];
    out += i + 1 < in.size() ? k[v >> 6 & 63] : '=';
    out += i + 2 < in.size() ? k[v & 63] : '=';
  }
  return out;
}

// zlib's deflate (the browser's DecompressionStream("deflate")), level 9:
// the same bytes every time.
std::string deflated(const std::string& s) {
  uLongf n = compressBound(uLong(s.size()));
  std::vector<unsigned char> out(n);
  if (compress2(out.data(), &n, reinterpret_cast<const Bytef*>(s.data()), uLong(s.size()), 9) != Z_OK) return "";
  out.resize(n);
  return base64(out);
}

// The colours of the page's SVGs as classes: each (attribute, light colour,
// dark colour) once, so the dark theme is a few lines of CSS, not a second
// drawing.
class Palette {
 public:
  // The SVG with fill="#…"/stroke="#…" (and its -opacity, where a colour is
  // translucent in one theme: a traced figure's faded tiles) replaced by
  // class="cv-kN"; the light and dark drawings must be the same but for
  // colours, else the light one is kept as it is.
  std::string classes(const std::string& light, const std::string& dark) {
    static const std::regex colour(R"re((fill|stroke)="(#[0-9a-f]{6})"(?: (?:fill|stroke)-opacity="([0-9.]+)")?)re");
    if (std::regex_replace(light, colour, "$1") != std::regex_replace(dark, colour, "$1")) return light;
    std::string out;
    auto li = std::sregex_iterator(light.begin(), light.end(), colour);
    auto di = std::sregex_iterator(dark.begin(), dark.end(), colour);
    std::size_t at = 0;
    for (; li != std::sregex_iterator(); ++li, ++di) {
      // A colour with its opacity: "#aabbcc;fill-opacity:0.35" (1 where opaque,
      // so a class always sets both).
      auto paint = [](const std::smatch& m) {
        return m[2].str() + ";" + m[1].str() + "-opacity:" + (m[3].matched ? m[3].str() : std::string("1"));
      };
      const auto key = std::make_tuple((*li)[1].str(), paint(*li), paint(*di));
      auto [it, added] = ids_.try_emplace(key, int(ids_.size()));
      out.append(light, at, std::size_t(li->position()) - at);
      out += "class=\"cv-k" + std::to_string(it->second) + "\"";
      at = std::size_t(li->position() + li->length());
    }
    out.append(light, at, std::string::npos);
    return out;
  }
  std::string css() const {
    std::vector<std::string> light(ids_.size()), dark(ids_.size());
    for (const auto& [key, id] : ids_) {
      const std::string name = ".cv-k" + std::to_string(id) + "{" + std::get<0>(key) + ":";
      light[id] = name + std::get<1>(key) + "}";
      dark[id] = name + std::get<2>(key) + "}";
    }
    std::string s;
    for (const std::string& l : light) s += l + "\n";
    if (ids_.empty()) return s;
    s += "@media (prefers-color-scheme: dark){\n";
    for (const std::string& d : dark) s += d + "\n";
    return s + "}\n";
  }

 private:
  std::map<std::tuple<std::string, std::string, std::string>, int> ids_;
};

// One SVG as it sits in the page: no XML declaration, role="img" named by
// its <title> and described by its <desc>, ids prefixed, colours as
// classes, and a focusable target over each block with its hover text.
std::string inlineSvg(const HtmlSvg& s, const std::string& prefix, const std::string& desc, Palette& palette) {
  std::string svg = s.dark.empty() ? s.light : palette.classes(s.light, s.dark);
  if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
  svg = replaceAll(svg, "id=\"c", "id=\"" + prefix + "-c");
  svg = replaceAll(svg, "url(#c", "url(#" + prefix + "-c");
  const std::string d = "<desc id=\"" + prefix + "-d\">" + htmlEscape(desc) + "</desc>\n";
  std::size_t head = svg.find('>');
  if (svg.compare(head + 2, 7, "<title>") == 0) {
    svg.insert(head + 8, " id=\"" + prefix + "-t\"");
    svg.insert(svg.find("</title>\n") + 9, d);
    svg.insert(head, " role=\"img\" aria-labelledby=\"" + prefix + "-t\" aria-describedby=\"" + prefix + "-d\"");
  } else {
    svg.insert(head + 2, d);
    svg.insert(head, " role=\"img\" aria-describedby=\"" + prefix + "-d\"");
  }
  std::string hits;
  for (const HtmlTip& t : s.tips)
    hits += "<rect class=\"cv-hit\" tabindex=\"0\" x=\"" + num(t.rect.x) + "\" y=\"" + num(t.rect.y) + "\" width=\"" +
            num(t.rect.w) + "\" height=\"" + num(t.rect.h) + "\"><title>" + htmlEscape(t.text) + "</title></rect>\n";
  if (!hits.empty()) svg.insert(svg.rfind("</svg>"), "<g>\n" + hits + "</g>\n");
  return svg;
}

// `fmt`: a label naming the traced rank ("what reaches {0}"), shown for
// `rank` and kept in step by the script.
std::string radio(const std::string& name, const std::string& id, const std::string& value, const std::string& label,
                  bool checked, const std::string& fmt = "", int rank = 0) {
  std::string text = htmlEscape(label);
  if (!fmt.empty())
    text = "<span data-fmt=\"" + htmlEscape(fmt) + "\">" +
           htmlEscape(replaceAll(fmt, "{0}", "R" + std::to_string(rank))) + "</span>";
  return "<label for=\"" + id + "\"><input type=\"radio\" name=\"" + name + "\" id=\"" + id + "\" value=\"" + value +
         "\"" + (checked ? " checked" : "") + "> " + text + "</label>\n";
}

// "round {0}/{1}" filled in (the slider's label before the script runs, and without it).
std::string roundOf(std::string fmt, int at, int last) {
  for (auto [key, v] : {std::pair<const char*, int>{"{0}", at}, {"{1}", last}})
    if (std::size_t i = fmt.find(key); i != std::string::npos) fmt.replace(i, 3, std::to_string(v));
  return fmt;
}

std::string figure(const HtmlFigure& f, const HtmlWords& w, Palette& palette) {
  const std::string P = f.id;
  std::string o;
  if (!f.heading.empty()) o += "<h2 id=\"" + P + "-h\">" + htmlEscape(f.heading) + "</h2>\n";
  const int n = int(f.states.size());
  const int first = f.initial >= 0 && f.initial < n ? f.initial : 0;
  o += "<figure class=\"cv-fig cv-" +
       std::string(f.kind == HtmlKind::trace    ? "trace"
                   : f.kind == HtmlKind::rounds ? "rounds"
                   : f.kind == HtmlKind::stages ? "stages"
                                                : "still") +
       "\" id=\"" + P + "\" data-ranks=\"" + std::to_string(f.ranks) + "\" data-state=\"" + std::to_string(first) + "\">\n";
  if (f.kind == HtmlKind::trace) {
    std::string z;
    for (int k = 0; k < n; ++k)
      z += (k ? "," : "") + (k == first ? std::string() : deflated(inlineSvg(f.states[k], P + "s" + std::to_string(k), f.desc, palette)));
    o += "<div class=\"cv-view\" data-z=\"" + z + "\">\n" +
         inlineSvg(f.states[first], P + "s" + std::to_string(first), f.desc, palette) + "</div>\n";
    o += "<div class=\"cv-tip\" aria-live=\"polite\"></div>\n";
    const int ranks = (n - 1) / 2, at = first == 0 ? -1 : (first - 1) % std::max(1, ranks);
    const bool goes = first > ranks;
    o += "<fieldset class=\"cv-ctl\" hidden><legend>" + htmlEscape(w.trace) + "</legend>\n";
    o += radio(P + "-t", P + "-t-all", "-1", w.all, at < 0);
    for (int r = 0; r < ranks; ++r)
      o += radio(P + "-t", P + "-t-" + std::to_string(r), std::to_string(r), "R" + std::to_string(r), at == r);
    o += "</fieldset>\n<fieldset class=\"cv-ctl\" hidden><legend>" + htmlEscape(w.direction) + "</legend>\n";
    o += radio(P + "-d", P + "-d-reaches", "reaches", "", !goes, w.reaches, std::max(at, 0));
    o += radio(P + "-d", P + "-d-goes", "goes", "", goes, w.goes, std::max(at, 0));
    o += "</fieldset>\n";
  } else if (f.kind == HtmlKind::rounds) {
    o += "<div class=\"cv-rounds\">\n";
    for (int k = 0; k < n; ++k)
      o += std::string("<div class=\"cv-view cv-round") + (k == first ? " cv-on" : "") + "\">\n" +
           inlineSvg(f.states[k], P + "s" + std::to_string(k), f.desc, palette) + "</div>\n";
    o += "</div>\n<div class=\"cv-tip\" aria-live=\"polite\"></div>\n";
    o += "<div class=\"cv-ctl cv-steps\" hidden>\n<button type=\"button\" class=\"cv-prev\">" + htmlEscape(w.prev) +
         "</button>\n<button type=\"button\" class=\"cv-play\" data-play=\"" + htmlEscape(w.play) + "\" data-pause=\"" +
         htmlEscape(w.pause) + "\">" + htmlEscape(w.play) + "</button>\n<button type=\"button\" class=\"cv-next\">" +
         htmlEscape(w.next) + "</button>\n<input type=\"range\" min=\"0\" max=\"" + std::to_string(n - 1) +
         "\" value=\"" + std::to_string(first) + "\" aria-label=\"" + htmlEscape(roundOf(w.round, first, n - 1)) +
         "\" data-fmt=\"" + htmlEscape(w.round) + "\">\n<output data-fmt=\"" +
         htmlEscape(w.round) + "\"></output>\n</div>\n";
  } else if (f.kind == HtmlKind::still) {
    o += "<div class=\"cv-view\">\n" + inlineSvg(f.states[0], P + "s0", f.desc, palette) +
         "</div>\n<div class=\"cv-tip\" aria-live=\"polite\"></div>\n";
  } else {
    o += "<div class=\"cv-scroll\" tabindex=\"0\" role=\"region\" aria-label=\"" + htmlEscape(w.states) +
         "\">\n<div class=\"cv-row\">\n";
    for (int k = 0; k < n; ++k)
      o += "<div class=\"cv-view\">\n" + inlineSvg(f.states[k], P + "s" + std::to_string(k), f.desc, palette) + "</div>\n";
    o += "</div>\n</div>\n<div class=\"cv-tip\" aria-live=\"polite\"></div>\n";
  }
  o += "<figcaption>" + htmlEscape(f.caption) + " <span class=\"cv-" + (f.verified ? "ok" : "bad") + "\">" +
       htmlEscape(f.verdict) + "</span></figcaption>\n</figure>\n";
  return o;
}

constexpr const char* kStyle = R"css(body{margin:0;background:Canvas;color:CanvasText;font:16px/1.5 "DejaVu Sans",Verdana,sans-serif}
.cv-page{max-width:1232px;margin:0 auto;padding:16px}
.cv-fig{margin:0 0 32px}
.cv-view svg{display:block;max-width:100%;height:auto}
.cv-scroll{overflow-x:auto}
.cv-row{display:flex;gap:8px;width:max-content}
.cv-row svg{max-width:none}
.cv-round+.cv-round{margin-top:8px}
.cv-js .cv-round:not(.cv-on){display:none}
.cv-ctl{border:1px solid GrayText;border-radius:6px;margin:8px 0;padding:4px 12px}
.cv-ctl label{margin-right:12px;white-space:nowrap}
.cv-ctl[hidden]{display:none}
.cv-tip{min-height:1.5em;white-space:pre-line;font-size:14px}
.cv-hit{fill:transparent;outline:none}
.cv-hit:focus{stroke:Highlight;stroke-width:3}
.cv-ok{color:#2e7d32}.cv-bad{color:#c62828;font-weight:bold}
.cv-switch{margin:0 0 16px}
.cv-deck .cv-page{max-width:none}
.cv-slide{margin:0 0 16px}
.cv-slide svg{display:block;width:100%;height:auto}
.cv-js .cv-slide svg{max-height:calc(100vh - 96px)}
.cv-js .cv-slide:not(.cv-on){display:none}
.cv-slide figcaption{font-size:14px}
)css";

constexpr const char* kScript = R"js((function () {
  'use strict';
  function inflate(s) {
    var b = atob(s), u = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) u[i] = b.charCodeAt(i);
    return new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('deflate'))).text();
  }
  var still = window.matchMedia('(prefers-reduced-motion: reduce)');
  document.querySelectorAll('figure.cv-fig').forEach(function (f) {
    f.classList.add('cv-js');
    f.querySelectorAll('.cv-ctl').forEach(function (c) { c.hidden = false; });
    var tip = f.querySelector('.cv-tip');
    function show(e) {
      var h = e.target.closest ? e.target.closest('.cv-hit') : null;
      if (h && tip) tip.textContent = h.firstElementChild.textContent;
    }
    f.addEventListener('mouseover', show);
    f.addEventListener('focusin', show);
    var view = f.querySelector('.cv-view[data-z]');
    if (view) {
      var z = view.getAttribute('data-z').split(','), cache = {}, want = -1, n = +f.getAttribute('data-ranks');
      cache[f.getAttribute('data-state')] = view.innerHTML;
      var pick = function () {
        var t = +f.querySelector('input[name="' + f.id + '-t"]:checked').value;
        var goes = f.querySelector('input[name="' + f.id + '-d"]:checked').value === 'goes';
        var s = t < 0 ? 0 : 1 + t + (goes ? n : 0);
        if (t >= 0)
          f.querySelectorAll('span[data-fmt]').forEach(function (l) {
            l.textContent = l.getAttribute('data-fmt').replace('{0}', 'R' + t);
          });
        want = s;
        (s in cache ? Promise.resolve(cache[s]) : inflate(z[s]).then(function (x) { return (cache[s] = x); }))
          .then(function (x) {
            if (want !== s) return;
            view.innerHTML = x;
            f.setAttribute('data-state', s);
          });
      };
      f.querySelectorAll('input[type=radio]').forEach(function (i) { i.addEventListener('change', pick); });
    }
    var rounds = f.querySelectorAll('.cv-round');
    if (!rounds.length) return;
    var range = f.querySelector('input[type=range]'), out = f.querySelector('output');
    var play = f.querySelector('.cv-play'), timer = null, at = +range.value, last = rounds.length - 1;
    function go(k) {
      at = Math.max(0, Math.min(last, k));
      rounds.forEach(function (r, i) { r.classList.toggle('cv-on', i === at); });
      range.value = at;
      out.textContent = out.getAttribute('data-fmt').replace('{0}', at).replace('{1}', last);
      range.setAttribute('aria-label', range.getAttribute('data-fmt').replace('{0}', at).replace('{1}', last));
      f.setAttribute('data-state', at);
    }
    function stop() {
      if (timer) clearInterval(timer);
      timer = null;
      play.textContent = play.getAttribute('data-play');
    }
    f.querySelector('.cv-prev').addEventListener('click', function () { stop(); go(at - 1); });
    f.querySelector('.cv-next').addEventListener('click', function () { stop(); go(at + 1); });
    range.addEventListener('input', function () { stop(); go(+range.value); });
    play.addEventListener('click', function () {
      if (timer) return stop();
      if (at === last) go(0);
      play.textContent = play.getAttribute('data-pause');
      timer = setInterval(function () { if (at === last) stop(); else go(at + 1); }, still.matches ? 2500 : 1200);
    });
    go(at);
  });
  var slides = document.querySelectorAll('.cv-slide');
  if (!slides.length) return;
  var deck = document.querySelector('.cv-deck'), count = deck.querySelector('.cv-count'), now = 0;
  deck.classList.add('cv-js');
  deck.querySelector('.cv-ctl').hidden = false;
  function show(k) {
    now = Math.max(0, Math.min(slides.length - 1, k));
    slides.forEach(function (s, i) { s.classList.toggle('cv-on', i === now); });
    count.textContent = count.getAttribute('data-fmt').replace('{0}', now).replace('{1}', slides.length - 1);
    deck.setAttribute('data-slide', now);
  }
  deck.querySelector('.cv-prev').addEventListener('click', function () { show(now - 1); });
  deck.querySelector('.cv-next').addEventListener('click', function () { show(now + 1); });
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var k = { ArrowRight: now + 1, PageDown: now + 1, ArrowLeft: now - 1, PageUp: now - 1, Home: 0, End: slides.length - 1 }[e.key];
    if (k === undefined) return;
    e.preventDefault();
    show(k);
  });
  show(0);
})();
)js";

}  // namespace

namespace {

std::string head(const std::string& lang, const std::string& title, const std::string& theme, const std::string& css) {
  return "<!DOCTYPE html>\n<html lang=\"" + htmlEscape(lang) + "\">\n<head>\n<meta charset=\"utf-8\">\n" +
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" + htmlEscape(title) +
         "</title>\n<style>\n:root{color-scheme:" + (theme.empty() ? std::string("light dark") : "only " + theme) +
         "}\n" + kStyle + css + "</style>\n</head>\n";
}

std::string tail() { return std::string("<script>\n") + kScript + "</script>\n</body>\n</html>\n"; }

// A text's `command` (Markdown's backticks, as the texts write a command)
// as <code>command</code>; an unpaired backtick stays as it is.
std::string codeSpans(std::string s) {
  for (std::size_t a = s.find('`'); a != std::string::npos; a = s.find('`', a)) {
    const std::size_t b = s.find('`', a + 1);
    if (b == std::string::npos) break;
    s.replace(b, 1, "</code>");
    s.replace(a, 1, "<code>");
    a = b + 6 + 7 - 1;
  }
  return s;
}

}  // namespace

std::string deckPage(const std::string& lang, const std::string& title, const std::vector<HtmlSlide>& slides,
                     const HtmlWords& w, const std::string& theme) {
  Palette palette;
  std::string body = "<div class=\"cv-ctl cv-steps\" hidden>\n<button type=\"button\" class=\"cv-prev\">" +
                     htmlEscape(w.prev) + "</button>\n<button type=\"button\" class=\"cv-next\">" + htmlEscape(w.next) +
                     "</button>\n<output class=\"cv-count\" data-fmt=\"" + htmlEscape(w.round) + "\"></output>\n</div>\n";
  for (std::size_t k = 0; k < slides.size(); ++k)
    body += "<figure class=\"cv-slide\" id=\"s" + std::to_string(k) + "\">\n" +
            inlineSvg(slides[k].svg, "s" + std::to_string(k), slides[k].caption, palette) + "<figcaption>" +
            htmlEscape(slides[k].caption) + "</figcaption>\n</figure>\n";
  return head(lang, title, theme, palette.css()) + "<body class=\"cv-deck\">\n<main class=\"cv-page\">\n<h1>" +
         htmlEscape(title) + "</h1>\n" + body + "</main>\n" + tail();
}

std::string htmlPage(const std::vector<HtmlLang>& langs, const std::string& fixed_theme) {
  Palette palette;
  std::string body;
  const bool both = langs.size() > 1;
  if (both) {
    body += "<div class=\"cv-switch\" role=\"radiogroup\">\n";
    for (std::size_t i = 0; i < langs.size(); ++i)
      body += "<label lang=\"" + htmlEscape(langs[i].lang) + "\"><input type=\"radio\" name=\"cv-lang\" id=\"cv-lang-" +
              std::to_string(i) + "\"" + (i == 0 ? " checked" : "") + "> " + htmlEscape(langs[i].name) + "</label>\n";
    body += "</div>\n";
  }
  std::string switch_css;
  for (std::size_t i = 0; i < langs.size(); ++i) {
    const HtmlLang& l = langs[i];
    body += "<section class=\"cv-lang-" + std::to_string(i) + "\" lang=\"" + htmlEscape(l.lang) + "\">\n";
    if (l.heading) body += "<h1>" + htmlEscape(l.title) + "</h1>\n";
    for (const std::string& p : l.intro) body += "<p>" + codeSpans(htmlEscape(p)) + "</p>\n";
    for (const HtmlFigure& f : l.figures) body += figure(f, l.words, palette);
    body += "</section>\n";
    if (both)
      switch_css += "body:has(#cv-lang-" + std::to_string(i) + ":not(:checked)) .cv-lang-" + std::to_string(i) +
                    "{display:none}\n";
  }
  return head(langs.front().lang, langs.front().title, fixed_theme, switch_css + palette.css()) +
         "<body>\n<main class=\"cv-page\">\n" + body + "</main>\n" + tail();
}

}  // namespace collviz::ui
