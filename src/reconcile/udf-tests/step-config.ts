/**
 * The `step_config` of a real-time run of a saved UDF: the UDF by id, with the test's parameters.
 */
export function savedUdfStepConfig(udfId: string, args: Record<string, unknown>): Record<string, unknown> {
  return { udf_id: udfId, parameters: args };
}
