/**
 * The starter rules: what `docs/policies.md` shows and `svc-iac init` writes as an example
 * (`policies.yaml`). Pure text; a test checks that both hold exactly this and that it compiles.
 */
export const STARTER_POLICIES = `# Policy rules (docs/policies.md): checked by validate, plan, apply and drift.
rules:
  - name: public-canvas-needs-passcode
    description: A canvas anyone can open has a passcode.
    match: kind == 'canvas'
    rule: object.access_scope != 'public' || has(object.passcode)
    message: "{{ address }} is public without a passcode: add passcode: \${env.NAME} or set access_scope: team"
    severity: mandatory

  - name: cronjobs-at-night
    description: Scheduled jobs run between 22:00 and 06:00 UTC.
    match: kind == 'cronjob'
    rule: >-
      has(object.hour)
        ? size(object.hour) > 0 && object.hour.all(h, h < 6 || h >= 22)
        : has(object.schedule) && object.schedule.matches('^[0-9]+ ([0-5]|2[23])(,([0-5]|2[23]))* ')
    message: "{{ address }} runs in the day; schedule it between 22:00 and 06:00 UTC"
    severity: advisory

  - name: deletion-budget
    description: One change deletes at most 20 objects.
    scope: plan
    rule: plan.totals.delete <= 20
    message: "the plan deletes {{ plan.totals.delete }} objects; at most 20 in one change"
    severity: mandatory

  - name: udf-names
    description: UDF names are lower snake_case.
    match: kind == 'udf'
    rule: object.slug.matches('^[a-z][a-z0-9_]*$')
    message: "{{ address }}: the UDF name {{ object.slug }} is not lower snake_case"
    severity: advisory
`;
