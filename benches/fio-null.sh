# The anchor of the simulator's and the demo's benchmarks (issue 30), sourced by
# benches/sim-speed.sh and benches/demo-time.sh: fio's `null` engine doing 2 million 4 KiB
# random writes at QD3 on core 0 (the CPU an I/O costs fio when it does no I/O at all).
# `fio_null` prints its I/Os per second (0 without fio).
fio_null() {
    command -v fio >/dev/null || { echo 0; return; }
    taskset -c 0 fio --name=null --ioengine=null --rw=randwrite --bs=4k --iodepth=3 \
        --size=8g --number_ios=2000000 --output-format=json 2>/dev/null |
        python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0]['write']['iops'])"
}
