//! What fio's JSON output says of the measured job: its version, error code, I/Os, IOPS and
//! total latency (mean, maximum, percentiles), read and write added.

use serde_json::Value;

/// fio's own figures of the measured job.
#[derive(Debug, Clone, PartialEq)]
pub struct FioReport {
    /// `fio-3.33`.
    pub version: String,
    /// I/Os whose latency fio counted (`lat_ns.N`, read and write), what its logs hold.
    pub latencies: u64,
    /// I/Os completed (`total_ios`).
    pub ios: u64,
    /// IOPS as fio reports them (read and write added).
    pub iops: f64,
    /// Mean total latency, ns (weighted over read and write).
    pub mean_ns: f64,
    /// Largest total latency, ns.
    pub max_ns: u64,
    /// Total-latency percentiles (`lat_percentiles`), ns, by percent, of the one direction
    /// the job has (empty for a mix).
    pub percentiles: Vec<(f64, u64)>,
}

/// Reads the report of job `name` (a job of a client's `client_stats`, or `jobs`).
pub fn read(json: &str, name: &str) -> Result<FioReport, String> {
    let v: Value =
        serde_json::from_str(json).map_err(|e| format!("fio's JSON output is unreadable: {e}"))?;
    let version = v["fio version"].as_str().unwrap_or("unknown").to_string();
    let jobs = v["jobs"]
        .as_array()
        .or_else(|| v["client_stats"].as_array())
        .ok_or("fio's JSON output has no jobs")?;
    let job = jobs
        .iter()
        .find(|j| j["jobname"] == name)
        .ok_or_else(|| format!("fio's JSON output has no job {name:?}"))?;
    let error = job["error"].as_i64().unwrap_or(0);
    if error != 0 {
        return Err(format!("fio reports error {error} for the job"));
    }
    let mut r = FioReport {
        version,
        latencies: 0,
        ios: 0,
        iops: 0.0,
        mean_ns: 0.0,
        max_ns: 0,
        percentiles: Vec::new(),
    };
    let mut weighted = 0.0;
    for dir in ["read", "write"] {
        let d = &job[dir];
        let lat = &d["lat_ns"];
        let n = lat["N"].as_u64().unwrap_or(0);
        r.ios += d["total_ios"].as_u64().unwrap_or(0);
        r.iops += d["iops"].as_f64().unwrap_or(0.0);
        if n == 0 {
            continue;
        }
        r.latencies += n;
        weighted += lat["mean"].as_f64().unwrap_or(0.0) * n as f64;
        r.max_ns = r.max_ns.max(lat["max"].as_u64().unwrap_or(0));
        let mut pct: Vec<(f64, u64)> = lat["percentile"]
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.parse::<f64>().ok()?, v.as_u64()?)))
                    .collect()
            })
            .unwrap_or_default();
        pct.sort_by(|a, b| a.0.total_cmp(&b.0));
        r.percentiles = if r.percentiles.is_empty() {
            pct
        } else {
            Vec::new()
        };
    }
    if r.latencies > 0 {
        r.mean_ns = weighted / r.latencies as f64;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_job_is_found_in_a_local_or_a_client_report() {
        let job = r#"{"jobname":"measure","error":0,
            "read":{"total_ios":0,"iops":0.0,"lat_ns":{"N":0}},
            "write":{"total_ios":10,"iops":100.5,"lat_ns":{"N":12,"mean":50.0,"max":90,
              "percentile":{"99.000000":88,"50.000000":40}}}}"#;
        let local = format!(r#"{{"fio version":"fio-3.33","jobs":[{job}]}}"#);
        let r = read(&local, "measure").unwrap();
        assert_eq!((r.latencies, r.ios, r.max_ns), (12, 10, 90));
        assert_eq!(r.percentiles, [(50.0, 40), (99.0, 88)]);
        let client = format!(r#"{{"fio version":"fio-3.33","client_stats":[{job}]}}"#);
        assert_eq!(read(&client, "measure").unwrap(), r);
        assert!(read(&local, "other").unwrap_err().contains("no job"));
        assert!(read("{", "measure").unwrap_err().contains("unreadable"));
    }
}
