# Writes TuneSources.inc: the harness, its JSON string writer, the occupancy
# header, the element-type and candidate-kind tables of kfuse tune as string constants, so the
# kfuse binary carries them into every bundle.
file(READ "${HARNESS}" HARNESS_TEXT)
file(READ "${JSON}" JSON_TEXT)
file(READ "${OCCUPANCY}" OCCUPANCY_TEXT)
file(READ "${ELEMENTS}" ELEMENTS_TEXT)
file(READ "${KINDS}" KINDS_TEXT)
file(WRITE "${OUTPUT}"
  "// Generated from ${HARNESS}, ${JSON}, ${OCCUPANCY}, ${ELEMENTS} and ${KINDS}.\n"
  "const char *const HarnessSource = R\"kfuse_embed(${HARNESS_TEXT})kfuse_embed\";\n"
  "const char *const JsonSource = R\"kfuse_embed(${JSON_TEXT})kfuse_embed\";\n"
  "const char *const OccupancySource = R\"kfuse_embed(${OCCUPANCY_TEXT})kfuse_embed\";\n"
  "const char *const ElementTypesSource = R\"kfuse_embed(${ELEMENTS_TEXT})kfuse_embed\";\n"
  "const char *const CandidateKindsSource = R\"kfuse_embed(${KINDS_TEXT})kfuse_embed\";\n")
