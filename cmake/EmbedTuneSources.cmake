# Writes TuneSources.inc: the harness and the occupancy header of kfuse tune
# as string constants, so the kfuse binary carries them into every bundle.
file(READ "${HARNESS}" HARNESS_TEXT)
file(READ "${OCCUPANCY}" OCCUPANCY_TEXT)
file(WRITE "${OUTPUT}"
  "// Generated from ${HARNESS} and ${OCCUPANCY}.\n"
  "const char *const HarnessSource = R\"kfuse_embed(${HARNESS_TEXT})kfuse_embed\";\n"
  "const char *const OccupancySource = R\"kfuse_embed(${OCCUPANCY_TEXT})kfuse_embed\";\n")
