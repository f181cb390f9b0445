#version 330 core
in float v_across;
flat in float v_half;
flat in vec4 v_color;
out vec4 frag_color;

void main() {
  float coverage = clamp(v_half + 0.5 - abs(v_across), 0.0, 1.0);
  frag_color = vec4(v_color.rgb, v_color.a * coverage);
}
