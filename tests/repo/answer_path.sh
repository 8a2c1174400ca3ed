#!/bin/sh
# answer_path.sh OBJECT... - the front ends answer a query only through
# libpascal's one path (pascal/answer.h): among the given objects (pascald's
# library, the CLI's objects) some call pascal_answer_query and write with
# pascal_codec_answer_*, and none calls a part of the answer on its own (the
# model's prediction, the expected-error lookup, the time of a prediction),
# so a change of pascal_answer_query is a change of every front end's
# answers (and tests/api/test_cli_agreement.py checks they are the same).
# Verified to fail: with h_predict answering through
# pascal_model_predict_scan and pascal_validation_expect_scan again (the
# code before the query type), the script names both and exits 1.
set -u
[ $# -ge 1 ] || { echo "usage: answer_path.sh OBJECT..."; exit 2; }
undef=$(nm -u "$@" 2>/dev/null | awk '{ print $NF }' | sort -u)
[ -n "$undef" ] || { echo "no symbols read from $*"; exit 1; }
bad=0
for need in pascal_answer_query pascal_codec_answer_write pascal_codec_answer_encode; do
  echo "$undef" | grep -qx "$need" || { echo "no front end calls $need"; bad=1; }
done
for part in pascal_model_predict_scan pascal_model_predict_gemm pascal_model_predict_attention \
            pascal_validation_expect_scan pascal_validation_expect_gemm pascal_predict_time_scan \
            pascal_predict_time_gemm; do
  if echo "$undef" | grep -qx "$part"; then
    echo "a front end calls $part itself: answer through pascal_answer_query"
    bad=1
  fi
done
exit $bad
