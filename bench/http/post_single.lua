-- bench/http/post_single.lua - wrk script for the single POST /v1/predict
-- load of run.sh and breakdown.sh: the same sim-gb10 query as their GETs.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"device":"sim-gb10","o":1,"path":"tma","d":4,"m":6,"N":4096,"W":16}'
