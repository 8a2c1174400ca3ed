# tiny.profile - a deliberately small sim device for the end-to-end tests:
# 4 SMs and C = 64 blocks, so that a whole test plan (N = 96..192 blocks,
# W up to 64) simulates in well under a second even under sanitizers. Every
# key not named here keeps the default (gb10-like) value.
name = e2e-tiny
sm_count = 4
capacity_blocks = 64
l2_bytes = 1048576
