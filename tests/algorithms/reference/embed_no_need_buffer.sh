#!/bin/sh
# Regenerates algorithms/NoNeedBufferData.cpp from the shared table. Run from the repo root.
set -e
tsv=${1:-../shared/data/no_need_buffer.tsv}
{
  echo '// Generated from ../shared/data/no_need_buffer.tsv (tests/algorithms checks it is current).'
  echo '// Regenerate: scripts in tests/algorithms/reference/embed_no_need_buffer.sh'
  echo '#include <string_view>'
  echo 'namespace rx {'
  echo 'extern const std::string_view kNoNeedBufferTsv;'
  echo 'const std::string_view kNoNeedBufferTsv = R"tsv('"$(cat "$tsv")"
  echo ')tsv";'
  echo '}  // namespace rx'
} > algorithms/NoNeedBufferData.cpp
