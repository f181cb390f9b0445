#version 330 core
in float v_across;
flat in float v_half;
flat in vec4 v_color;
in float v_along;
flat in float v_dash;
out vec4 frag_color;

void main() {
  float coverage = clamp(v_half + 0.5 - abs(v_across), 0.0, 1.0);
  // Dashed (a message across hosts): the gaps are left out, their ends antialiased.
  if (v_dash > 0.0) {
    float at = mod(v_along, 2.0 * v_dash);
    coverage *= clamp(min(at, v_dash - at) + 0.5, 0.0, 1.0);
  }
  frag_color = vec4(v_color.rgb, v_color.a * coverage);
}
