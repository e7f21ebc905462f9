"""Makes moto check signatures: creates an IAM user allowed everything, prints its access key id
and secret, then tells the server to authenticate and authorise every later request."""
import json
import sys
import urllib.request

import boto3

endpoint = sys.argv[1]
iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                   aws_access_key_id="testing", aws_secret_access_key="testing")
iam.create_user(UserName="fjord-test")
iam.put_user_policy(UserName="fjord-test", PolicyName="all", PolicyDocument=json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
key = iam.create_access_key(UserName="fjord-test")["AccessKey"]
# text/plain: a form content type would make Flask swallow the body.
urllib.request.urlopen(urllib.request.Request(endpoint + "/moto-api/reset-auth", data=b"0",
                                              headers={"Content-Type": "text/plain"},
                                              method="POST")).read()
print(key["AccessKeyId"], key["SecretAccessKey"])
