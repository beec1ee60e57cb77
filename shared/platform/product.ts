/** The service's product name, the default `appName` of OTP emails. */
export const PRODUCT_NAME = 'Postlane';
