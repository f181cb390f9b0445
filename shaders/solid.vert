#version 330 core
// Plain coloured triangles (arrowheads).
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_color;
uniform vec2 u_target;
uniform vec2 u_offset;
out vec4 v_color;

void main() {
  vec2 pos = u_offset + a_pos;
  gl_Position = vec4(pos.x / u_target.x * 2.0 - 1.0, 1.0 - pos.y / u_target.y * 2.0, 0.0, 1.0);
  v_color = a_color;
}
