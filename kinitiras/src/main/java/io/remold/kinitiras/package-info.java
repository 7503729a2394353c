/**
 * kinitiras's policies ({@code policy.kcloudlabs.io/v1alpha1}) as a Remold rule family.
 */
package io.remold.kinitiras;
