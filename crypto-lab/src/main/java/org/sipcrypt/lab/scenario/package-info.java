/**
 * Scenarios: what a lab run sets up (the two legs around the proxy, the workload, authentication)
 * and the load it offers, read from YAML files ({@code scenarios/lab/*.yaml}, also bundled in the
 * lab's jar as presets). It depends on the server's transport vocabulary only.
 */
package org.sipcrypt.lab.scenario;
