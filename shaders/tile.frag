#version 330 core
// A rounded rectangle by signed distance: antialiased edge, a border of the
// given width (dashed on request), and contributor stripes, either a thin
// band along the bottom (a reduced block: who was summed) or the whole tile
// (the all-gather join node).
in vec2 v_local;
flat in vec2 v_half;
flat in vec4 v_fill;
flat in vec4 v_border;
flat in vec2 v_shape;
flat in uvec2 v_bits;
flat in int v_count;

uniform vec4 u_palette[16];  // colour per letter, A first

out vec4 frag_color;

const uint kDashed = 1u;
const uint kStripes = 2u;
const uint kStripesFull = 4u;

float roundedBox(vec2 p, vec2 b, float r) {
  vec2 q = abs(p) - b + r;
  return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
}

// Colour of the k-th contributor (k-th set bit of the mask).
vec4 stripeColor(uint mask, int k) {
  int seen = 0;
  for (int bit = 0; bit < 32; ++bit) {
    if ((mask & (1u << uint(bit))) != 0u) {
      if (seen == k) return u_palette[bit % 16];
      ++seen;
    }
  }
  return vec4(0.5, 0.5, 0.5, 1.0);
}

void main() {
  float radius = min(v_shape.x, min(v_half.x, v_half.y));
  float bw = v_shape.y;
  float d = roundedBox(v_local, v_half, radius);
  float coverage = clamp(0.5 - d, 0.0, 1.0);
  if (coverage <= 0.0) discard;
  float inside = clamp(0.5 - (d + bw), 0.0, 1.0);  // 1 inside the border

  vec4 fill = v_fill;
  vec4 border = v_border;
  uint flags = v_bits.x;
  uint mask = v_bits.y;
  int n = v_count;
  if (n > 0 && (flags & (kStripes | kStripesFull)) != 0u) {
    vec2 p = v_local + v_half;  // from the top-left corner
    float w = 2.0 * v_half.x - 2.0 * bw;
    float band = (flags & kStripesFull) != 0u ? 2.0 * v_half.y
                                              : max(3.0, 0.17 * 2.0 * v_half.y);
    bool in_band = p.y >= 2.0 * v_half.y - bw - band;
    if (in_band) {
      float seg = w / float(n);
      float x = p.x - bw;
      int k = clamp(int(floor(x / seg)), 0, n - 1);
      // A hairline gap between stripes keeps neighbours apart.
      float edge = x - float(k) * seg;
      bool gap = n > 1 && (edge < 0.6 || edge > seg - 0.6) && seg > 4.0;
      vec4 c = stripeColor(mask, k);
      if (!gap) fill = vec4(c.rgb, fill.a);
    }
  }
  if ((flags & kDashed) != 0u) {
    // Walk along whichever edge this pixel is nearest.
    vec2 q = abs(v_local) - v_half;
    float along = q.y > q.x ? v_local.x : v_local.y;
    if (mod(along + 1000.0, 9.0) > 5.0) border.a = 0.0;
  }
  vec4 c = mix(border, fill, inside);
  frag_color = vec4(c.rgb, c.a * coverage);
}
