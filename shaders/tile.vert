#version 330 core
// Rounded rectangles (block tiles, row boxes, nodes), one instance each.
// Instance attributes mirror collviz::ui::TileInstance (app/ui/scene.h).
layout(location = 0) in vec2 a_corner;   // unit quad corner, 0..1
layout(location = 1) in vec4 a_rect;     // x, y, w, h in scene pixels
layout(location = 2) in vec4 a_fill;
layout(location = 3) in vec4 a_border;
layout(location = 4) in vec2 a_shape;    // corner radius, border width
layout(location = 5) in uvec2 a_bits;    // flags, contributor stripes

uniform vec2 u_target;  // target size in scene pixels
uniform vec2 u_offset;  // scene origin inside the target

out vec2 v_local;  // position relative to the rect's centre
flat out vec2 v_half;
flat out vec4 v_fill;
flat out vec4 v_border;
flat out vec2 v_shape;
flat out uvec2 v_bits;
flat out int v_count;  // contributors, counted once per vertex, not per pixel

void main() {
  // One pixel of margin so the antialiased edge is not cut off.
  vec2 half_size = a_rect.zw * 0.5;
  vec2 local = (a_corner * 2.0 - 1.0) * (half_size + 1.0);
  vec2 pos = u_offset + a_rect.xy + half_size + local;
  gl_Position = vec4(pos.x / u_target.x * 2.0 - 1.0, 1.0 - pos.y / u_target.y * 2.0, 0.0, 1.0);
  v_local = local;
  v_half = half_size;
  v_fill = a_fill;
  v_border = a_border;
  v_shape = a_shape;
  v_bits = a_bits;
  int n = 0;
  for (int bit = 0; bit < 32; ++bit) n += int((a_bits.y >> uint(bit)) & 1u);
  v_count = (a_bits.x & 6u) != 0u ? n : 0;
}
