//! Quantities as the playground shows them: cores and binary byte units.

/// Millicores as cores (`1.5`, `16`).
pub fn format_cpu(milli: i64) -> String {
    if milli % 1000 == 0 {
        format!("{}", milli / 1000)
    } else {
        format!("{:.1}", milli as f64 / 1000.0)
    }
}

/// Bytes in binary units (`512 MiB`, `64 GiB`).
pub fn format_bytes(bytes: i64) -> String {
    const GIB: i64 = 1 << 30;
    const MIB: i64 = 1 << 20;
    if bytes >= GIB {
        if bytes % GIB == 0 {
            format!("{} GiB", bytes / GIB)
        } else {
            format!("{:.1} GiB", bytes as f64 / GIB as f64)
        }
    } else {
        format!("{} MiB", bytes / MIB)
    }
}
