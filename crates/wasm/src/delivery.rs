//! Lab mode's deliveries: replies from a real etcd, in the simulation's
//! `Reply` shape, packed the way the sandboxed harness reads a step (see
//! `engine::delivery`).

use wasm_bindgen::prelude::*;

use engine::delivery::pack;
use sim::{CallId, Reply};

/// `pack` for lab mode, whose replies come from a real etcd in the
/// simulation's shape (`{ "reply": "cas", … }`, see `sim::Reply`).
#[wasm_bindgen(js_name = packDelivery)]
pub fn pack_delivery(call: CallId, process: u32, clocks: &str, reply_json: &str) -> Result<String, JsError> {
    if !clocks.bytes().all(|byte| byte.is_ascii_digit() || byte == b',') {
        return Err(JsError::new(&format!(
            "packDelivery: clocks must be whole milliseconds separated by commas, got {clocks:?}"
        )));
    }
    let reply: Reply = serde_json::from_str(reply_json)
        .map_err(|error| JsError::new(&format!("packDelivery: not a reply: {error}")))?;
    Ok(pack(call, process, clocks, &reply))
}
