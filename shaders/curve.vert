#version 330 core
// Flows: one cubic Bezier per instance, expanded into a triangle strip of
// u_segments pieces. Instance attributes mirror CurveInstance (app/ui/scene.h).
layout(location = 1) in vec4 a_p01;    // p0.xy, p1.xy
layout(location = 2) in vec4 a_p23;    // p2.xy, p3.xy
layout(location = 3) in vec4 a_color;
layout(location = 4) in float a_width;
layout(location = 5) in float a_dash;  // dashes and gaps this long; 0 solid

uniform vec2 u_target;
uniform vec2 u_offset;
uniform int u_segments;

out float v_across;  // signed distance from the centre line, pixels
flat out float v_half;
flat out vec4 v_color;
out float v_along;  // length along the curve, pixels (dashes)
flat out float v_dash;

vec2 bezier(float t) {
  float s = 1.0 - t;
  return s * s * s * a_p01.xy + 3.0 * s * s * t * a_p01.zw + 3.0 * s * t * t * a_p23.xy +
         t * t * t * a_p23.zw;
}

vec2 tangent(float t) {
  float s = 1.0 - t;
  return 3.0 * s * s * (a_p01.zw - a_p01.xy) + 6.0 * s * t * (a_p23.xy - a_p01.zw) +
         3.0 * t * t * (a_p23.zw - a_p23.xy);
}

void main() {
  int i = gl_VertexID / 2;
  float side = (gl_VertexID % 2 == 0) ? -1.0 : 1.0;
  float t = float(i) / float(u_segments);
  vec2 dir = tangent(t);
  if (dot(dir, dir) < 1e-6) dir = a_p23.zw - a_p01.xy;
  vec2 normal = normalize(vec2(-dir.y, dir.x));
  float half_width = a_width * 0.5;
  float reach = half_width + 1.0;  // one pixel more for the antialiased edge
  vec2 pos = u_offset + bezier(t) + normal * side * reach;
  gl_Position = vec4(pos.x / u_target.x * 2.0 - 1.0, 1.0 - pos.y / u_target.y * 2.0, 0.0, 1.0);
  v_across = side * reach;
  v_half = half_width;
  v_color = a_color;
  // A dashed curve: the length of the polyline through the segments so far.
  float along = 0.0;
  if (a_dash > 0.0) {
    vec2 prev = bezier(0.0);
    for (int k = 1; k <= i; ++k) {
      vec2 q = bezier(float(k) / float(u_segments));
      along += length(q - prev);
      prev = q;
    }
  }
  v_along = along;
  v_dash = a_dash;
}
